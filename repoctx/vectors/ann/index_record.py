"""vectors/ann/index_record — the records of the approximate index at ``repo/{id}/vidx/...``.

One exclusive prefix per embedding space, ``vidx/{space}/``; under it:

- ``manifest``: ``{gen, dim, nlist, nprobe, trained}`` — which generation is live. A
  retrain writes a whole new generation first and its manifest last, so a reader (or a
  crash) sees the old generation or the new one, never half of one;
- ``g{gen:06d}/state``: ``{chunks: [per cell], adds, removes}`` — the live generation's
  chunk counts and the drift since it was trained, rewritten by every flush;
- ``g{gen:06d}/k{i:03d}``: the centroids, float32 rows, in chunks;
- ``g{gen:06d}/c{cell:05d}/{chunk:05d}``: posting-list chunks of at most ``CHUNK_BYTES``:
  ``{ids: [vectorId], addr: [address prefix], vecs: float32 bytes}``.

Every value is one last-writer-wins register named ``v``. Derived and local (never
replicated): the whole range is rebuildable from the payloads. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from repoctx.crdt import lww_register, record
from repoctx.crdt.record import Record
from repoctx.trees import make_key

FAMILY = "vidx"
VALUE = "v"
CHUNK_BYTES = 64 * 1024
"""Upper bound of one chunk's stored bytes (seed 003: index chunks of up to 64 KiB)."""
_CHUNK_SLACK = 512  # record envelope, msgpack headers
ADDR_CHARS = 16


@dataclass
class Posting:
    """One posting-list chunk."""

    ids: list[str] = field(default_factory=list)
    addr: list[str] = field(default_factory=list)
    vecs: bytearray = field(default_factory=bytearray)

    def size(self) -> int:
        """Approximate stored bytes."""
        return len(self.vecs) + sum(len(i) + ADDR_CHARS + 8 for i in self.ids) + _CHUNK_SLACK

    def fits(self, vid: str, dim: int) -> bool:
        """True when one more entry keeps the chunk within ``CHUNK_BYTES``."""
        return self.size() + 4 * dim + len(vid) + ADDR_CHARS + 8 <= CHUNK_BYTES

    def append(self, vid: str, addr: str, data: bytes) -> None:
        """Add an entry."""
        self.ids.append(vid)
        self.addr.append(addr[:ADDR_CHARS])
        self.vecs += data

    def matrix(self, dim: int) -> np.ndarray:
        """The chunk's vectors as a ``(len, dim)`` float32 array."""
        return np.frombuffer(bytes(self.vecs), dtype="<f4").reshape(-1, dim)

    def wire(self) -> dict[str, Any]:
        """The stored value."""
        return {"ids": list(self.ids), "addr": list(self.addr), "vecs": bytes(self.vecs)}


def space_prefix(repo_id: str, space: str) -> str:
    """``repo/{repoId}/vidx/{space}/``: everything of one space's index."""
    return make_key(repo_id, FAMILY, f"{space}/")


def manifest_key(repo_id: str, space: str) -> str:
    """The manifest of a space's index."""
    return make_key(repo_id, FAMILY, f"{space}/manifest")


def gen_prefix(repo_id: str, space: str, gen: int) -> str:
    """The prefix of one generation."""
    return make_key(repo_id, FAMILY, f"{space}/g{gen:06d}/")


def state_key(repo_id: str, space: str, gen: int) -> str:
    """A generation's state row."""
    return gen_prefix(repo_id, space, gen) + "state"


def centroid_key(repo_id: str, space: str, gen: int, part: int) -> str:
    """One chunk of a generation's centroids."""
    return gen_prefix(repo_id, space, gen) + f"k{part:03d}"


def cell_prefix(repo_id: str, space: str, gen: int, cell: int) -> str:
    """The prefix of one partition's posting chunks."""
    return gen_prefix(repo_id, space, gen) + f"c{cell:05d}/"


def chunk_key(repo_id: str, space: str, gen: int, cell: int, chunk: int) -> str:
    """One posting chunk."""
    return cell_prefix(repo_id, space, gen, cell) + f"{chunk:05d}"


def value_delta(value: Any, tick: int, replica: str) -> Record:
    """The record holding ``value`` (None retires it)."""
    return record.write({VALUE: lww_register.set_value(lww_register.EMPTY, value, tick, replica)},
                        tick)


def value_of(rec: Record | None) -> Any:
    """The stored value, or None."""
    return record.field_state(rec, VALUE, lww_register).value


def posting_of(rec: Record | None) -> Posting:
    """The stored chunk (empty when missing)."""
    raw = value_of(rec)
    if not raw:
        return Posting()
    return Posting(list(raw["ids"]), list(raw["addr"]), bytearray(raw["vecs"]))


def centroid_parts(centroids: np.ndarray) -> list[bytes]:
    """The centroid matrix cut into chunks of at most ``CHUNK_BYTES``."""
    data = np.asarray(centroids, dtype="<f4")
    rows = max(1, (CHUNK_BYTES - _CHUNK_SLACK) // max(1, data.shape[1] * 4))
    return [data[i:i + rows].tobytes() for i in range(0, len(data), rows)]
