"""crdt/clock — the hybrid logical clock that stamps every write of a replica.

A tick is one int, ``wall_ms << 16 | counter``: it follows the wall clock when the
wall clock moves forward and counts on from the last tick when it stands still or
jumps back, so ticks of one replica strictly increase. Ties between replicas are
broken by replica id where ticks are compared. The owner persists ``last`` (the
store does, in the local tree, inside each write transaction) so ticks never go
backwards across restarts. Reference: Kulkarni et al., "Logical Physical Clocks"
(2014).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

COUNTER_BITS = 16


def wall_ms() -> int:
    """Milliseconds since the epoch from the system clock."""
    return time.time_ns() // 1_000_000


def tick_ms(tick: int) -> int:
    """The wall-clock milliseconds a tick carries."""
    return tick >> COUNTER_BITS


@dataclass(slots=True)
class Clock:
    """A replica's hybrid logical clock; mutable because it must move forward."""

    last: int = 0
    wall: Callable[[], int] = field(default=wall_ms)

    def now(self) -> int:
        """A fresh tick, strictly above every tick issued or observed before."""
        tick = max(self.last + 1, self.wall() << COUNTER_BITS)
        self.last = tick
        return tick

    def observe(self, tick: int) -> None:
        """Move past a tick seen on a record from elsewhere (the HLC receive rule)."""
        if tick > self.last:
            self.last = tick
