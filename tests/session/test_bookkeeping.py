"""Session bookkeeping in a store: ids, reads at a time, writes, replicas converging."""

from __future__ import annotations

from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.crdt import wall_ms
from repoctx.errors import ToolError
from repoctx.session import (
    SESSION_TTL_MS,
    check_session_id,
    record_delivery,
    session_key,
    session_view,
)

NOW = wall_ms()  # store.get hides records by the wall clock


@pytest.mark.parametrize("bad", ["", "a/b", "tab\there", "x" * 129, None, 7])
def test_bad_session_ids_are_tool_errors_naming_the_argument(bad):
    with pytest.raises(ToolError, match="session"):
        check_session_id(bad)


def test_good_session_ids_pass():
    assert check_session_id("agent-1:task 7") == "agent-1:task 7"
    assert check_session_id("x" * 128) == "x" * 128


def test_record_then_view(store):
    assert record_delivery(store, "s1", ["r1"], ["a.py@h"], NOW)
    got = session_view(store, "s1", NOW + 1)
    assert got.receipts == {"r1"} and got.possession == {"a.py@h"}
    assert session_view(store, "other", NOW).receipts == frozenset()


def test_nothing_delivered_writes_nothing(store):
    assert not record_delivery(store, "s1", [], [], NOW)
    assert store.get(session_key(store, "s1")) is None


def test_record_inside_a_caller_batch(store):
    with store.batch() as b:
        record_delivery(store, "s1", ["r1"], [], NOW, batch=b)
    assert session_view(store, "s1", NOW).receipts == {"r1"}


def test_expired_session_records_are_invisible_and_reaped(store):
    record_delivery(store, "s1", ["r1"], [], NOW)
    later = NOW + SESSION_TTL_MS
    assert session_view(store, "s1", later).receipts == frozenset()
    with store.snapshot(later) as snap:
        assert snap.get(session_key(store, "s1")) is None
    reaped = store.gc(now_ms=later + 2 * 3_600_000)
    assert reaped.get("repo-context-session") == 1


def test_a_delivery_slides_the_whole_record(store):
    record_delivery(store, "s1", ["r1"], [], NOW)
    record_delivery(store, "s1", ["r2"], [], NOW + 60_000)
    got = session_view(store, "s1", NOW + SESSION_TTL_MS + 1)
    assert got.receipts == {"r2"}  # r1 lapsed; the record itself lives on


def test_two_replicas_sharing_a_session_converge_by_union(tmp_path: Path):
    a = open_store(tmp_path / "a", repo_id="demo", replica_id="ra")
    b = open_store(tmp_path / "b", repo_id="demo", replica_id="rb")
    try:
        record_delivery(a, "s", ["r1", "r2"], ["x.py@1"], NOW)
        record_delivery(b, "s", ["r2", "r3"], ["y.py@2"], NOW + 5)
        key = session_key(a, "s")
        rec_a, rec_b = a.get(key), b.get(key)
        a.merge(key, rec_b)
        b.merge(key, rec_a)
        va, vb = session_view(a, "s", NOW), session_view(b, "s", NOW)
        assert va == vb
        assert va.receipts == {"r1", "r2", "r3"}
        assert va.possession == {"x.py@1", "y.py@2"}
        assert a.get(key).fields == b.get(key).fields
    finally:
        a.close()
        b.close()
