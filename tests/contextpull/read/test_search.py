"""Search against stores written by hand with raw SQL, as another writer would."""

from __future__ import annotations

import struct
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from repoctx.contextpull import Reader
from repoctx.contextpull.read.search import (
    HINT_NO_EMBEDDINGS,
    HINT_NO_WORDS,
    HINT_REDUCED,
    fuse,
    rarest_first,
)

DOCS = {
    "guide.md": [
        ("Guide > Install", "prose", "Run uv sync --no-cache to skip the download cache."),
        ("Guide > Python", "prose", "Requires Python 3.12. Set tool.uv.sources for local paths."),
        ("Guide > Errors", "prose", "Error TX-4419 means declined. TX-4501 is a gateway timeout."),
    ],
    "café.md": [("Café > Menu", "prose", "Le café crème est très bon. Résumé naïve.")],
    "docs/a/deep.md": [("Deep", "prose", "Deep notes about the cache layer.")],
    "docs/b.md": [("B", "prose", "Shallow notes about the cache layer.")],
    "docsx.md": [("X", "prose", "Sibling notes about the cache layer.")],
}


@pytest.fixture
def reader(raw_store: Callable[..., Path]) -> Reader:
    with Reader(raw_store(DOCS)) as r:
        yield r


def ids(result: dict) -> list[str]:
    return [hit["id"] for hit in result["hits"]]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("--no-cache", ["guide.md#0"]),
        ("no-cache", ["guide.md#0"]),
        ("tx-4419", ["guide.md#2"]),
        ("3.12", ["guide.md#1"]),
        ("tool.uv.sources", ["guide.md#1"]),
        ("cafe creme resume naive", ["café.md#0"]),
        ("CAFÉ", ["café.md#0"]),
    ],
)
def test_tokens_match_whole(reader: Reader, query: str, expected: list[str]) -> None:
    assert ids(reader.search(query)) == expected


def test_partial_token_is_not_a_search_match(reader: Reader) -> None:
    result = reader.search("TX-45")
    assert result["hits"] == [] and result["mode"] == "lexical" and "hint" in result


@pytest.mark.parametrize("query", ['NEAR(cache layer)', 'cache" OR "', "cache*", "text:cache",
                                   "cache AND", "(cache", "^cache", "-cache"])  # fmt: skip
def test_fts_syntax_is_plain_text(reader: Reader, query: str) -> None:
    result = reader.search(query)
    assert "docs/b.md#0" in ids(result)


@pytest.mark.parametrize("query", ['"', "*", ":", "--", "  "])
def test_no_words_hint(reader: Reader, query: str) -> None:
    assert reader.search(query) == {"hits": [], "mode": "lexical", "hint": HINT_NO_WORDS}


def test_hits_shape_and_no_bodies(reader: Reader) -> None:
    hit = reader.search("cache layer")["hits"][0]
    assert set(hit) == {"id", "doc", "heading_path", "kind", "snippet", "score"}
    assert "**cache layer**" in hit["snippet"] and "\n" not in hit["snippet"]
    assert hit["score"] == round(hit["score"], 2) and hit["score"] > 0


def test_phrase_and_all_terms_before_any_term_and_ties_by_id(reader: Reader) -> None:
    result = ids(reader.search("notes cache layer"))
    assert result[:3] == ["docs/a/deep.md#0", "docs/b.md#0", "docsx.md#0"]
    assert result[3] == "guide.md#0"  # only "cache": the OR pass comes last


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        (["docs"], ["docs/a/deep.md#0", "docs/b.md#0"]),
        (["docs/a"], ["docs/a/deep.md#0"]),
        (["docs/*.md"], ["docs/a/deep.md#0", "docs/b.md#0"]),  # GLOB * crosses '/'
        (["doc"], []),
        (["docsx.md", "docs/b.md"], ["docs/b.md#0", "docsx.md#0"]),
        (["docs?.md"], ["docsx.md#0"]),
    ],
)
def test_path_filter(reader: Reader, entries: list[str], expected: list[str]) -> None:
    assert sorted(ids(reader.search("cache layer", in_=entries))) == expected


def test_limit(reader: Reader) -> None:
    assert len(reader.search("cache", limit=2)["hits"]) == 2


def test_hybrid_without_embeddings_is_lexical_with_hint(reader: Reader) -> None:
    result = reader.search("cache", mode="hybrid")
    assert result["mode"] == "lexical" and result["hint"] == HINT_NO_EMBEDDINGS
    assert ids(result) == ids(reader.search("cache"))


def _add_embeddings(path: Path, vectors: dict[str, list[float]]) -> None:
    import sqlite3

    conn = sqlite3.connect(path)
    for section_id, vec in vectors.items():
        blob = struct.pack(f"<{len(vec)}f", *vec)
        conn.execute("INSERT INTO embeddings VALUES (?, 'toy', ?, ?)", (section_id, len(vec), blob))
    conn.commit()
    conn.close()


def test_hybrid_fuses_dense_and_lexical(raw_store: Callable[..., Path]) -> None:
    path = raw_store(DOCS)
    _add_embeddings(path, {"café.md#0": [1.0, 0.0], "guide.md#1": [0.0, 1.0],
                           "docs/b.md#0": [0.6, 0.8]})  # fmt: skip
    calls = []

    def embed(model: str, text: str) -> list[float]:
        calls.append((model, text))
        return [2.0, 0.0]  # nearest: café, then docs/b

    with Reader(path, embed=embed) as reader:
        result = reader.search("python", mode="hybrid", limit=3)
        filtered = reader.search("python", mode="hybrid", in_=["docs"])
    assert calls[0] == ("toy", "python") and result["mode"] == "hybrid"
    assert set(ids(result)) == {"café.md#0", "guide.md#1", "docs/b.md#0"}
    assert ids(result)[0] == "guide.md#1"  # first in both rankings
    assert ids(filtered) == ["docs/b.md#0"]


def test_fuse_reciprocal_rank() -> None:
    a = [{"id": "x"}, {"id": "y"}]
    b = [{"id": "y"}, {"id": "z"}]
    fused = fuse([a, b], 10)
    assert [h["id"] for h in fused] == ["y", "x", "z"]
    assert fused[0]["score"] == round(1 / 62 + 1 / 61, 4)


def test_a_long_query_is_searched_with_its_rarest_words_and_says_so(reader: Reader) -> None:
    filler = " ".join(["cache", "notes", "about", "the", "layer"] * 2000)
    result = reader.search(f"{filler} gateway {filler}")
    assert ids(result)[0] == "guide.md#2"  # the one rare word decides, not 10,000 common ones
    assert result["hint"] == HINT_REDUCED.format(n=6)


def test_a_megabyte_query_costs_milliseconds(reader: Reader) -> None:
    query = " ".join(f"word{i} cache" for i in range(100_000))  # ~1.1 MB, 100,001 distinct
    start = time.monotonic()
    result = reader.search(query)
    assert time.monotonic() - start < 5.0  # ~0.1 s; 3,000 words alone take 21 s unreduced
    assert set(ids(result)) == {"guide.md#0", "docs/a/deep.md#0", "docs/b.md#0", "docsx.md#0"}


def test_rarest_first_orders_by_sections_holding_a_term(reader: Reader) -> None:
    terms = ["zzz-absent", "cache", "gateway", "notes"]
    assert rarest_first(reader._conn, terms) == ["gateway", "notes", "cache", "zzz-absent"]
