"""vectors/records/payload_record — a vector payload at ``repo/{id}/vpay/{address}``.

Content-addressed and write-once: the address is the SHA-256 of the vector's
little-endian float32 bytes, and the one field ``f32`` holds those bytes in a register
stamped with tick 0 by no replica, so every replica writes byte-identical records and
a second write of the same vector changes nothing. Never retired: a payload outlives
the metadata that points at it (the tree is never compacted, seed 003).
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from repoctx.crdt import lww_register, record
from repoctx.crdt.record import Record
from repoctx.trees import make_key
from repoctx.vectors.embedders.embedder import float32_bytes, from_bytes

if TYPE_CHECKING:
    import numpy as np

FAMILY = "vpay"
F32 = "f32"


def address(data: bytes) -> str:
    """The content address of a payload: the SHA-256 hex of its bytes."""
    return hashlib.sha256(data).hexdigest()


def payload_key(repo_id: str, addr: str) -> str:
    """``repo/{repoId}/vpay/{address}``."""
    return make_key(repo_id, FAMILY, addr)


def encode_vector(vector: np.ndarray) -> tuple[str, bytes]:
    """``(address, bytes)`` of a vector."""
    data = float32_bytes(vector)
    return address(data), data


def payload_delta(current: Record | None, data: bytes) -> Record | None:
    """The write-once record holding ``data`` (None when it is already stored)."""
    if current is not None and record.field_state(current, F32, lww_register).value == data:
        return None
    return record.write({F32: lww_register.LwwRegister(0, "", data)}, 0)


def vector(rec: Record | None) -> np.ndarray | None:
    """The stored vector, or None."""
    data = record.field_state(rec, F32, lww_register).value
    return None if data is None else from_bytes(data)
