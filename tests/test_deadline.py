"""deadline: a call's bound, seen by the code it runs, by SQLite and by other threads."""

import sqlite3
import threading
import time

import pytest

from repoctx import deadline
from repoctx.errors import CallTimeoutError, ToolError

# counts to a billion: minutes of SQLite work unless something interrupts it
ENDLESS = ("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
           "WHERE i < 1000000000) SELECT count(*) FROM n")


def connect():
    conn = sqlite3.connect(":memory:", check_same_thread=False)
    conn.set_progress_handler(deadline.interrupt_when_due, deadline.SQLITE_PROGRESS_OPS)
    return conn


def test_outside_a_bounded_scope_nothing_is_bounded():
    assert deadline.current() is None
    deadline.check()
    assert deadline.remaining(0.25) == 0.25
    assert deadline.interrupt_when_due() == 0


def test_a_call_past_its_deadline_raises_a_tool_error_saying_what_to_do():
    with deadline.bounded(0.05, "grep") as due:
        assert deadline.current() is due and 0 < deadline.remaining(1.0) <= 0.05
        time.sleep(0.06)
        with pytest.raises(CallTimeoutError, match="grep took longer than 0.05 s") as info:
            deadline.check()
    assert isinstance(info.value, ToolError) and "narrow the query" in str(info.value)
    assert deadline.current() is None


def test_a_running_sqlite_statement_is_interrupted_at_the_deadline():
    conn = connect()
    start = time.monotonic()
    with pytest.raises(CallTimeoutError), deadline.bounded(0.2, "search"):
        conn.execute(ENDLESS).fetchone()
    assert time.monotonic() - start < 1.0 * 5
    assert conn.execute("SELECT 1").fetchone() == (1,)  # the connection is still usable


def test_a_cancel_from_another_thread_stops_the_work():
    due = deadline.Deadline(60, "grep")
    result = {}

    def worker():
        conn = connect()
        try:
            with deadline.bounded(due):
                conn.execute(ENDLESS).fetchone()
        except CallTimeoutError as exc:
            result["error"] = str(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    time.sleep(0.2)
    due.cancel()
    thread.join(timeout=5)
    assert not thread.is_alive() and "cancelled" in result["error"]


def test_a_nested_scope_never_extends_and_is_cancelled_with_its_parent():
    with deadline.bounded(0.5, "outer") as outer, deadline.bounded(60, "inner") as inner:
        assert inner is outer  # the earlier deadline wins
    with deadline.bounded(60, "outer") as outer, deadline.bounded(5, "inner") as inner:
        assert inner is not outer and not inner.expired()
        outer.cancel()
        assert inner.expired() and inner.remaining() == 0.0


def test_other_threads_keep_their_own_deadline():
    seen = {}

    def other():
        seen["other"] = deadline.current()

    with deadline.bounded(1.0):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
    assert seen["other"] is None


def test_an_error_ending_a_due_call_becomes_the_deadline_error():
    with pytest.raises(CallTimeoutError) as info, deadline.bounded(0.01, "read"):
        time.sleep(0.02)
        raise TimeoutError("regex timed out")
    assert isinstance(info.value.__cause__, TimeoutError)
    with pytest.raises(ValueError), deadline.bounded(60):
        raise ValueError("not due: passes through")


def test_the_call_bound_is_configurable_and_checked():
    assert deadline.call_seconds({}) == deadline.DEFAULT_CALL_SECONDS
    assert deadline.call_seconds({deadline.CALL_SECONDS_ENV: "2.5"}) == 2.5
    for bad in ("0", "-1", "soon", "1e9"):
        with pytest.raises(ToolError, match=deadline.CALL_SECONDS_ENV):
            deadline.call_seconds({deadline.CALL_SECONDS_ENV: bad})
