"""trees/isolated: a reader run in a forked child; its crash is reported, not inherited."""

from __future__ import annotations

import faulthandler
import os

import pytest

from repoctx.errors import StoreFormatError
from repoctx.trees.isolated import Crashed, run_isolated


def _counting(n: int):
    yield from range(n)


def _aborting():
    yield "before"
    faulthandler.disable()  # pytest's dump of the child would only be noise
    os.abort()  # what an LMDB assertion on a damaged page does


def _raising():
    yield 1
    raise StoreFormatError("the file is damaged")


def test_messages_arrive_in_order_and_a_finished_child_adds_nothing():
    assert list(run_isolated(_counting, 3)) == [0, 1, 2]


def test_a_child_killed_by_a_signal_ends_with_crashed_naming_it():
    got = list(run_isolated(_aborting))
    assert got[0] == "before" and isinstance(got[1], Crashed) and got[1].how == "SIGABRT"


def test_an_error_in_the_child_is_raised_in_the_parent_with_its_message():
    with pytest.raises(StoreFormatError, match="the file is damaged"):
        list(run_isolated(_raising))
