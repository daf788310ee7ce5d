from repoctx.contextpull.write.index_text import IndexEntry, build_index, document_line

ENTRIES = [
    IndexEntry(f"dir{i % 7}/sub{i % 3}/doc-{i}.md", f"Title {i}", f"Summary {i} " * 3, i % 5 + 1)
    for i in range(300)
]


def test_document_line_format() -> None:
    line = document_line(IndexEntry("a.md", "T" * 80, None, 3))
    assert line == "a.md" + " " * 26 + "  " + "T" * 60 + "  (3)"


def test_flat_when_it_fits() -> None:
    index = build_index("root", ENTRIES[:5], 3000)
    assert index.mode == "flat"
    assert index.text.startswith("ContextPull index · root · 5 documents · ")


def test_budget_picks_compact_then_hierarchical() -> None:
    modes = []
    for budget in (100_000, 5000, 200, 20):
        index = build_index("root", ENTRIES, budget)
        modes.append(index.mode)
        assert index.text.startswith("ContextPull index · root · 300 documents")
        assert index.tokens <= max(budget, 30)
    assert modes[0] == "flat" and modes[-1] == "hierarchical"
    assert "compact" in modes


def test_tokens_within_judges_long_texts_by_a_prefix() -> None:
    from repoctx.contextpull.write.index_text import tokens_within
    from repoctx.tokenizer import count_tokens

    text = "\n".join(f"dir/file_{i}.md  Title {i}  (3)" for i in range(2000))
    assert tokens_within(text, 100) is None
    assert tokens_within(text, 10**6) == count_tokens(text)
    short = "ContextPull index · x · 1 documents · 1 sections"
    assert tokens_within(short, 1000) == count_tokens(short)


def test_known_counts_are_not_recounted(monkeypatch) -> None:
    from repoctx.contextpull.write import index_text

    first = build_index("root", ENTRIES, 200)
    assert first.counts

    def no_count(text: str) -> int:
        raise AssertionError("counted a text whose count was known")

    monkeypatch.setattr(index_text, "count_tokens", no_count)
    assert build_index("root", ENTRIES, 200, first.counts) == first


def test_a_memo_count_is_the_whole_texts_count() -> None:
    from repoctx.contextpull.write.index_text import TokenMemo, compact_text, flat_text
    from repoctx.tokenizer import count_tokens

    odd = [IndexEntry(f"naïve/ünï {i}/x.py", "  lead", "🙂 ’quote’ \t tab", 2) for i in range(40)]
    for entries in (ENTRIES, odd):
        for text in (flat_text("root", entries), compact_text("root", entries),
                     build_index("root", entries, 200).text):
            assert TokenMemo()(text) == count_tokens(text)


def test_an_edit_recounts_only_the_texts_whose_lines_below_the_header_changed(
        monkeypatch) -> None:
    from repoctx.contextpull.write import index_text

    first = build_index("root", ENTRIES, 200)
    edited = [*ENTRIES[:-1], IndexEntry(ENTRIES[-1].path, "T", "S", 9)]  # one more section
    counted: list[str] = []
    real = index_text.count_tokens

    def recording(text: str) -> int:
        counted.append(text)
        return real(text)

    expected = build_index("root", edited, 200)
    monkeypatch.setattr(index_text, "count_tokens", recording)
    assert build_index("root", edited, 200, first.counts) == expected
    known = set(first.counts)
    assert counted and not any(_digest(t) in known for t in counted)  # nothing twice
    headers = [t for t in counted if t.startswith("ContextPull index")]
    assert headers and all(t.count("\n") == 1 for t in headers)  # apart from the rest
    assert len(headers) == 1 and len(counted) < len(first.counts)  # rests kept their counts


def _digest(text: str) -> str:
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
