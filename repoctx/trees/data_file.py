"""trees/data_file — LMDB's ``data.mdb`` read as a file, before anything maps it.

LMDB maps the data file and trusts it: a page past the end of a truncated file is
touched through the map and the process dies of SIGBUS with no word.
So the file is checked first, with plain reads: its two meta pages
(pages 0 and 1, layout of ``MDB_meta`` in LMDB's ``mdb.c``, 64-bit build) name the
page size and the last page in use, and the file must hold every page up to that one.
A meta page is valid when its page header carries ``P_META``, its magic is
``0xBEEFC0DE`` and its version is 1; LMDB uses the valid one with the larger txnid.

Layout (byte offsets in a meta page): header ``mp_pgno`` u64 @0, ``mp_flags`` u16 @10;
``mm_magic`` u32 @16, ``mm_version`` u32 @20, ``mm_address`` @24, ``mm_mapsize`` @32,
``mm_dbs[2]`` (48 bytes each, the free DB's ``md_pad`` is the page size) @40,
``mm_last_pg`` u64 @136, ``mm_txnid`` u64 @144.

``salvage_copy`` makes a damaged file mappable for a rescue: a bad meta page is rewritten
from the good one, and a truncated file is padded with zero pages, which LMDB reports as
corrupt pages (``MDB_CORRUPTED``) instead of faulting on them.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from repoctx.errors import CorruptRecordError, StoreFormatError

DATA_FILE = "data.mdb"
MAGIC = 0xBEEFC0DE
VERSION = 1
P_META = 0x08
_HEADER = struct.Struct("<QHH")  # mp_pgno, mp_pad, mp_flags
_META = struct.Struct("<II")  # mm_magic, mm_version (at 16)
_PSIZE = struct.Struct("<I")  # mm_dbs[FREE_DBI].md_pad (at 40)
_TAIL = struct.Struct("<QQ")  # mm_last_pg, mm_txnid (at 136)
_META_END = 152
_PAGE_SIZES = (4096, 8192, 16384, 32768, 65536)
MAX_FILE_BYTES = 1 << 40
"""A meta page whose last page lies past this is damaged, not a real file's (a flipped
high bit of ``mm_last_pg`` once made a rescue pad a file to 2^74 bytes and crash)."""
REPAIR_HINT = CorruptRecordError.HINT


@dataclass(frozen=True, slots=True)
class Meta:
    """What one valid meta page says about the file."""

    page: int
    page_size: int
    last_page: int
    txnid: int

    @property
    def needed_bytes(self) -> int:
        """Bytes the file must hold for every page this meta reaches."""
        return (self.last_page + 1) * self.page_size


def read_meta(data: bytes, page: int, page_size: int) -> Meta | None:
    """The meta page ``page`` (0 or 1) of the file's first bytes ``data``, or None when
    that page is not a valid LMDB meta page."""
    off = page * page_size
    if len(data) < off + _META_END:
        return None
    pgno, _, flags = _HEADER.unpack_from(data, off)
    magic, version = _META.unpack_from(data, off + 16)
    (psize,) = _PSIZE.unpack_from(data, off + 40)
    last, txnid = _TAIL.unpack_from(data, off + 136)
    if (pgno != page or not flags & P_META or magic != MAGIC or version != VERSION
            or psize not in _PAGE_SIZES or (page == 1 and psize != page_size)
            or (last + 1) * psize > MAX_FILE_BYTES):
        return None
    return Meta(page, psize, last, txnid)


def metas(path: Path) -> list[Meta]:
    """The valid meta pages of the data file at ``path`` (none, one or two)."""
    with open(path, "rb") as f:
        head = f.read(2 * max(_PAGE_SIZES))
    first = read_meta(head, 0, 4096)
    sizes = (first.page_size,) if first else _PAGE_SIZES
    found = [first] if first else []
    for size in sizes:
        second = read_meta(head, 1, size)
        if second is not None:
            found.append(second)
            break
    return found


def problem(path: Path) -> str | None:
    """What makes the LMDB data file at ``path`` unsafe to map, or None when nothing does.

    Both meta pages must be valid (LMDB refuses the file otherwise) and the file must
    hold every page up to the current meta's last page.
    """
    try:
        size = path.stat().st_size
        found = metas(path)
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    if size == 0:
        return None  # a new environment another process is creating: LMDB writes it
    if len(found) < 2:
        lost = "both meta pages are" if not found else f"meta page {1 - found[0].page} is"
        return f"{path} is damaged: {lost} not valid LMDB meta pages"
    meta = max(found, key=lambda m: m.txnid)
    if size < meta.needed_bytes:
        return (f"{path} is truncated: {size} bytes where its last page (page "
                f"{meta.last_page} of {meta.page_size} bytes) needs {meta.needed_bytes}")
    return None


def check_data_file(directory: Path) -> None:
    """Raise ``StoreFormatError`` naming the file and the next step when the LMDB data
    file in ``directory`` exists but cannot be mapped safely."""
    path = directory / DATA_FILE
    if not path.exists():
        return
    found = problem(path)
    if found is not None:
        raise StoreFormatError(f"{found}; {REPAIR_HINT}")


def salvage_copy(source: Path, dest: Path) -> list[str]:
    """Copy the data file in the directory ``source`` into the new directory ``dest``,
    made safe to map; returns what was changed (nothing for a sound file).

    Raises ``StoreFormatError`` when neither meta page is valid: nothing then says where
    the trees are.
    """
    dest.mkdir(parents=True, exist_ok=False)
    src, out = source / DATA_FILE, dest / DATA_FILE
    import shutil  # here: every store open imports this module, few copy

    shutil.copyfile(src, out)
    found = metas(out)
    if not found:
        raise StoreFormatError(f"{src} is damaged beyond rescue: neither meta page is valid")
    changes = []
    good = max(found, key=lambda m: m.txnid)
    with open(out, "r+b") as f:
        if len(found) == 1:
            _copy_meta(f, good, 1 - good.page)
            changes.append(f"meta page {1 - good.page} rewritten from meta page {good.page}")
        size = f.seek(0, 2)
        if size < good.needed_bytes:
            f.truncate(good.needed_bytes)  # zero pages: LMDB reports them as corrupt
            changes.append(f"padded from {size} to {good.needed_bytes} bytes")
    return changes


def _copy_meta(f: BinaryIO, good: Meta, page: int) -> None:
    """Write meta page ``page`` as a copy of ``good`` (its page number patched)."""
    f.seek(good.page * good.page_size)
    data = bytearray(f.read(good.page_size))
    struct.pack_into("<Q", data, 0, page)
    f.seek(page * good.page_size)
    f.write(bytes(data))
