"""ordered_map: results in order, over forked workers for many items, in process for few."""

import os

import pytest

from repoctx.errors import ContextPullError
from repoctx.retrieval.search_pool import MIN_ITEMS, ordered_map


def _square_and_pid(n: int) -> tuple[int, int]:
    return n * n, os.getpid()


def _die_on_seven(n: int) -> int:
    if n == 7 and os.getpid() != PARENT:
        os._exit(3)  # a worker killed mid-task
    return n


PARENT = os.getpid()


def test_many_items_go_to_workers_and_come_back_in_order():
    items = list(range(MIN_ITEMS + 123))
    results = list(ordered_map(_square_and_pid, items, workers=2))
    assert [r[0] for r in results] == [n * n for n in items]
    assert {pid for _, pid in results} - {os.getpid()}  # computed in other processes


def test_few_items_or_one_worker_stay_in_process():
    assert {pid for _, pid in ordered_map(_square_and_pid, list(range(10)), workers=2)} == {
        os.getpid()}
    many = list(range(MIN_ITEMS))
    assert {pid for _, pid in ordered_map(_square_and_pid, many, workers=1)} == {os.getpid()}


def test_a_dead_worker_is_a_contextpull_error():
    with pytest.raises(ContextPullError, match="worker died"):
        list(ordered_map(_die_on_seven, list(range(MIN_ITEMS)), workers=2))
