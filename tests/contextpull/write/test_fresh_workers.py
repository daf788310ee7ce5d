"""in_order: chunks over fresh worker processes, results in order, a bounded window."""

from __future__ import annotations

import os

import pytest

from repoctx.contextpull.write.fresh_workers import in_order
from repoctx.errors import ContextPullError


def _pid_of(n: int) -> tuple[int, int]:
    return n, os.getpid()


def _exit_on_five(n: int) -> int:
    if n == 5:
        os._exit(3)  # a worker killed mid-task
    return n


def test_chunks_come_back_in_order_from_other_processes() -> None:
    chunks = [list(range(i, i + 3)) for i in range(0, 30, 3)]
    taken: list[list[int]] = []

    def given():  # type: ignore[no-untyped-def]
        for chunk in chunks:
            taken.append(chunk)
            yield chunk

    results = in_order(_pid_of, given(), 2, 2)
    first_chunk, first = next(results)
    assert first_chunk == chunks[0] and [n for n, _ in first] == chunks[0]
    assert len(taken) <= 3  # the window, and the chunk just taken
    rest = list(results)
    assert [c for c, _ in rest] == chunks[1:]
    assert {pid for _, r in rest for _, pid in r} - {os.getpid()}


def test_a_killed_worker_is_a_contextpull_error() -> None:
    with pytest.raises(ContextPullError, match="worker died"):
        list(in_order(_exit_on_five, iter([[1, 2], [3, 4], [5, 6], [7]]), 2, 4))
