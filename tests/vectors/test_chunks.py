from repoctx.vectors.chunks import (
    MAX_WINDOWS,
    OVERLAP,
    WINDOW,
    memory_chunks,
    memory_text,
    symbol_chunks,
    windows,
)


def test_windows_overlap_and_cover_the_body():
    body = "".join(f"line {i:05d} of the body\n" for i in range(400))
    parts = windows(body)
    assert parts[0].start == 0 and parts[-1].end == len(body)
    for a, b in zip(parts, parts[1:], strict=False):
        assert a.end - b.start == OVERLAP
        assert len(a.text) <= WINDOW and a.text.endswith("\n")  # cut at a line break
    assert all(c.text == body[c.start:c.end] for c in parts)


def test_at_most_32_windows_and_blank_ones_dropped():
    assert len(windows("x" * 200_000)) == MAX_WINDOWS
    assert windows("   \n\n  ") == []
    assert windows("") == []


def test_symbol_and_memory_texts():
    (chunk,) = symbol_chunks("pkg.mod.Cart.total", "method", "def total(self) -> int",
                             "Sum of the lines.", 10, 20)
    assert chunk.text == "method pkg.mod.Cart.total\ndef total(self) -> int\nSum of the lines."
    assert (chunk.start, chunk.end) == (10, 20)
    assert symbol_chunks("pkg.LIMIT", "variable", "LIMIT = 3", "", 1, 1) == []
    text = memory_text("Refunds", frozenset({"b", "a"}), "Thirty days.")
    assert text == "Refunds a b\nThirty days."
    assert memory_chunks("") == [] and memory_chunks(text)[0].end == len(text)
