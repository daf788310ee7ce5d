"""crdt/base — the one interface every CRDT module implements.

A CRDT here is a module, not a class: ``empty()``, ``value(state)``, one operation
per kind of update returning a delta (itself a state), ``merge(a, b)``, and the binary
form ``encode(state)`` / ``decode(data)``. ``merge`` is commutative, associative and
idempotent, never raises, does no I/O and reads no clock: actors and times come in
as arguments to the operations. Pure declarations.
"""

from __future__ import annotations

from typing import Any, Protocol


class CrdtModule(Protocol):
    """What every module in ``crdt/`` provides (checked by ``tests/crdt/test_laws.py``)."""

    def empty(self) -> Any:
        """The bottom state: nothing written."""

    def value(self, state: Any) -> Any:
        """The plain value a reader sees."""

    def merge(self, a: Any, b: Any) -> Any:
        """The least upper bound of two states."""

    def encode(self, state: Any) -> bytes:
        """The canonical binary form: type tag, format version, msgpack body."""

    def decode(self, data: bytes) -> Any:
        """Inverse of ``encode``; raises ``InvalidEncodingError``/``UnsupportedVersionError``."""
