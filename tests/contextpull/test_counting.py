from repoctx.contextpull.counting import count_one
from repoctx.tokenizer import count_tokens

TEXTS = ["", "hello world", "def f():\n    return 1\n", "<|endoftext|> is plain text", "é" * 50,
         "lone \ud800 surrogate"]  # fmt: skip


def test_counts_equal_count_tokens() -> None:
    assert [count_one(text) for text in TEXTS] == [count_tokens(text) for text in TEXTS]
    assert count_one("tx-4419 tool.uv.sources") == count_tokens("tx-4419 tool.uv.sources")
