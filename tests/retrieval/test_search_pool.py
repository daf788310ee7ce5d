"""ordered_map: results in order, over worker processes for many items, in process for few."""

import os

import pytest

from repoctx.errors import ContextPullError
from repoctx.retrieval.search_pool import CHUNK, IN_FLIGHT, MIN_ITEMS, ordered_map


def _square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def _die_on_seven(n: int) -> int:
    if n == 7 and os.getpid() != PARENT:
        os._exit(3)  # a worker killed mid-task
    return n


# The test process's pid, the same in the workers (they start fresh and import this module).
PARENT = int(os.environ.setdefault("REPOCTX_TEST_POOL_PARENT", str(os.getpid())))


def test_many_items_go_to_workers_and_come_back_in_order():
    items = list(range(MIN_ITEMS + 123))
    results = list(ordered_map(_square_and_pid, iter(items), workers=2))
    assert [item for item, _ in results] == items
    assert [square for _, (square, _) in results] == [n * n for n in items]
    assert {pid for _, (_, pid) in results} - {os.getpid()}  # computed in other processes


def test_items_are_taken_from_their_iterable_as_results_are_taken():
    taken = []

    def counted():
        for n in range(MIN_ITEMS * 4):
            taken.append(n)
            yield n

    results = ordered_map(_square_and_pid, counted(), workers=2)
    next(results)
    # The first result needs the head and a window of chunks, not every item.
    assert len(taken) <= MIN_ITEMS + CHUNK * IN_FLIGHT * 2 + CHUNK
    assert len(list(results)) == MIN_ITEMS * 4 - 1


def test_few_items_or_one_worker_stay_in_process():
    few = ordered_map(_square_and_pid, range(10), workers=2)
    assert {pid for _, (_, pid) in few} == {os.getpid()}
    many = ordered_map(_square_and_pid, range(MIN_ITEMS), workers=1)
    assert {pid for _, (_, pid) in many} == {os.getpid()}


def test_a_dead_worker_is_a_contextpull_error():
    with pytest.raises(ContextPullError, match="worker died"):
        list(ordered_map(_die_on_seven, range(MIN_ITEMS), workers=2))
