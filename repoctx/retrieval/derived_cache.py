"""retrieval/derived_cache — values a workspace derived from the store, kept on disk for
the next process.

A fresh ``repoctx call`` otherwise derives again what the previous one did: the indexed
paths, the module map, the declarations and resolved imports a ``changed`` looks up
(on Django, 0.55 s of a 0.9 s call). Each value is saved in its own file under the store
directory (``derived/<name>.msgpack``) with what it was derived from: the generation of its
store tree (which any writer in any process moves), the store and LMDB directory it was read from
(a new, repaired or restored store is another one) and the repoctx code that derived it (an
upgrade or an edit of the code derives differently). A process loads a value only while
all three still hold.

Best effort, never an error: a file that cannot be read, is damaged, or holds another shape
is derived afresh; one that cannot be written (a read-only disk, another user's store) is
not. Values are decoded by their declared type (msgspec), never unpickled, as the store may
be another user's. Two processes saving at once each rename a whole file into place.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgspec

from repoctx.store import Store

DIRNAME = "derived"
MOST_SAVED = 50_000
"""Most entries a saved value holds: a long-running server's caches can grow to hundreds
of thousands, whose file would take a fresh process longer to load than to derive what
one call needs. A larger value is not saved (the file saved before stays, if current)."""
_FORMAT = 1
_PACKAGE = Path(__file__).resolve().parent.parent


class _Saved(msgspec.Struct, frozen=True):
    format: int
    origin: str
    tree: str
    generation: int
    value: msgspec.Raw


def load(store: Store, name: str, tree: str, generation: int, kind: Any) -> Any | None:
    """The value saved as ``name``, derived from ``tree`` at ``generation`` in this store
    by this code, decoded as type ``kind``; None when there is none such."""
    try:
        data = (store.path / DIRNAME / f"{name}.msgpack").read_bytes()
        saved = msgspec.msgpack.decode(data, type=_Saved)
        if (saved.format, saved.origin, saved.tree, saved.generation) != (
                _FORMAT, _origin(store), tree, generation):
            return None
        return msgspec.msgpack.decode(saved.value, type=kind)
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return None  # derived afresh: the cache only ever saves work


def save(store: Store, name: str, tree: str, generation: int, value: Any) -> None:
    """Keep ``value`` (derived from ``tree`` at ``generation``) for the next process."""
    if len(value) > MOST_SAVED:
        return
    directory = store.path / DIRNAME
    part = directory / f"{name}.{os.getpid()}.part"
    try:
        data = msgspec.msgpack.encode(_Saved(_FORMAT, _origin(store), tree, generation,
                                             msgspec.Raw(msgspec.msgpack.encode(value))))
        directory.mkdir(exist_ok=True)
        part.write_bytes(data)
        os.replace(part, directory / f"{name}.msgpack")
    except (OSError, TypeError):  # unwritable here: the next process derives it again
        with contextlib.suppress(OSError):
            part.unlink(missing_ok=True)


def _origin(store: Store) -> str:
    """The store (its replica, made afresh with a new store) and the LMDB directory it
    opened (a repair swaps in another), and the code, as one string."""
    return f"{store.replica_id}:{store.opened_ino}:{_code()}"


@lru_cache(maxsize=1)
def _code() -> str:
    """A digest of the package's source files' names, sizes and modification times."""
    digest = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        stat = path.stat()
        digest.update(f"{path.relative_to(_PACKAGE)}:{stat.st_size}:{stat.st_mtime_ns}\n"
                      .encode())
    return digest.hexdigest()[:16]
