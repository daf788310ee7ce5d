"""The memory record: names, keys, field deltas, tombstones, merge laws of whole records."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import record
from repoctx.errors import ToolError
from repoctx.memory.memory_record import (
    Change,
    change_delta,
    check_name,
    entry,
    expiry_delta,
    forget_delta,
    link_element,
    memory_key,
    parse_memory_key,
    split_link,
)

K = "repo/demo/mem/t/i"
FILE = "repo/demo/file/a b.py"


def apply(rec, delta):
    return rec if delta is None else (delta if rec is None else record.merge(rec, delta))


def create(tick=1, replica="r1", **parts):
    change = Change("remember", {"kind": "note", "title": "T"}, **parts)
    return change_delta(None, change, tick, replica)


def test_keys_round_trip_and_names_are_checked():
    assert memory_key("demo", "t", "i") == K
    assert parse_memory_key("demo", K) == ("t", "i")
    for bad in ("a/b", "", "x\ty", "x\u0085", "x" * 129):
        with pytest.raises(ToolError):
            check_name("topic", bad)
    assert check_name("id", "ünïcode ok-1.2") == "ünïcode ok-1.2"


def test_link_elements_split_on_the_first_space_only():
    assert split_link(link_element("about", FILE)) == ("about", FILE)


def test_a_created_record_reads_back_as_an_entry():
    rec = create(body="hello", add_tags=frozenset({"x"}),
                 add_links=frozenset({("about", FILE)}), digests={FILE: "d1"},
                 expires_ms=500)
    got = entry(K, rec)
    assert (got.kind, got.title, got.body, got.tags) == ("note", "T", "hello", {"x"})
    assert got.links == {"about": {FILE}} and got.digests == {FILE: "d1"}
    assert got.expires_ms == 500 and got.revisions == 1 and got.exists


def test_an_unchanged_write_is_no_delta():
    rec = create()
    assert change_delta(rec, Change("update", {"title": "T"}), 2, "r1") is None
    assert expiry_delta(rec, 10, 2) is not None
    assert expiry_delta(record.merge(rec, expiry_delta(rec, 10, 2)), 5, 3) is None


def test_unlinking_the_last_relation_drops_the_digest_but_not_before():
    rec = create(add_links=frozenset({("about", FILE), ("tests", FILE)}), digests={FILE: "d"})
    rec = apply(rec, change_delta(rec, Change("update", remove_links=frozenset({("about",
                                                                                 FILE)})),
                                  2, "r1"))
    assert entry(K, rec).digests == {FILE: "d"}
    rec = apply(rec, change_delta(rec, Change("update", remove_links=frozenset({("tests",
                                                                                 FILE)})),
                                  3, "r1"))
    assert entry(K, rec).digests == {} and entry(K, rec).links == {}


def test_several_digests_in_one_change_get_distinct_dots():
    files = {f"repo/demo/file/{n}.py": n for n in "abc"}
    rec = create(add_links=frozenset(("about", f) for f in files), digests=files)
    assert entry(K, rec).digests == files


def test_forget_empties_every_field_into_a_tombstone():
    rec = create(body="b", add_tags=frozenset({"x"}), add_links=frozenset({("a", FILE)}),
                 digests={FILE: "d"})
    gone = apply(rec, forget_delta(rec, 5, "r1"))
    assert record.is_tombstone(gone) and not entry(K, gone).exists
    assert forget_delta(gone, 6, "r1") is None


ops = st.lists(st.tuples(st.sampled_from(["title", "tag", "untag", "body", "link", "unlink",
                                          "forget"]),
                         st.sampled_from(["x", "y"])), max_size=6)


@settings(max_examples=60, deadline=None)
@given(ops, ops)
def test_two_replicas_editing_one_record_converge(ops_a, ops_b):
    base = create(body="p1\n\np2\n")
    states = {"ra": base, "rb": base}
    tick = 10
    for replica, ops_r in (("ra", ops_a), ("rb", ops_b)):
        for op, arg in ops_r:
            tick += 1
            cur = states[replica]
            if op == "forget":
                delta = forget_delta(cur, tick, replica)
            else:
                change = {
                    "title": Change("u", {"title": arg}),
                    "tag": Change("u", add_tags=frozenset({arg})),
                    "untag": Change("u", remove_tags=frozenset({arg})),
                    "body": Change("u", body=entry(K, cur).body + arg),
                    "link": Change("u", add_links=frozenset({("r", FILE + arg)}),
                                   digests={FILE + arg: arg}),
                    "unlink": Change("u", remove_links=frozenset({("r", FILE + arg)})),
                }[op]
                delta = change_delta(cur, change, tick, replica)
            states[replica] = apply(cur, delta)
    ab = record.merge(states["ra"], states["rb"])
    ba = record.merge(states["rb"], states["ra"])
    assert record.encode(ab) == record.encode(ba)
    assert record.merge(ab, states["ra"]) == ab
