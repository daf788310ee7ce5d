"""reconcile/nodes/content_record: a bounded body with its digest; retired to a tombstone."""

from repoctx.crdt import lww_register, record
from repoctx.extract import links_of
from repoctx.reconcile.nodes import content_record as cr


def test_bounded_body_keeps_the_first_max_chars():
    assert cr.bounded_body("é" * (cr.MAX_CHARS + 5)) == "é" * cr.MAX_CHARS
    assert cr.bounded_body("short") == "short"


def test_content_delta_body_and_retire():
    rec = cr.content_delta(None, "print(1)\n", "d1", 1, "r1")
    assert cr.body(rec) == "print(1)\n" and cr.body(None) is None
    assert cr.content_delta(rec, "print(1)\n", "d1", 2, "r1") is None
    newer = cr.content_delta(rec, "print(1)\n", "d2", 2, "r1")
    assert set(newer.fields) == {"digest", "$tick"}  # same body: only the digest moves
    retired = record.merge(rec, cr.retire_delta(rec, 3, "r1"))
    assert record.is_tombstone(retired) and cr.body(retired) is None


def test_the_body_is_stored_compressed_and_read_back_whole():
    text = "def f():\n    return 'é'\n" * 400
    rec = cr.content_delta(None, text, "d1", 1, "r1")
    packed = record.field_state(rec, cr.PACKED_BODY, lww_register).value
    assert isinstance(packed, bytes) and len(packed) < len(text) // 10
    assert cr.body(rec) == text
    # the worker's packed form and the text give the same record: an unchanged body
    # written again (packed this time) changes nothing
    assert cr.content_delta(rec, cr.pack_body(text), "d1", 2, "r1") is None


def test_a_plain_body_of_an_older_writer_is_read_then_cleared_by_a_new_write():
    old = record.write({cr.LEGACY_BODY: lww_register.set_value(
        lww_register.EMPTY, "x = 1\n", 1, "r0"), "digest": lww_register.set_value(
        lww_register.EMPTY, "d0", 1, "r0")}, 1)
    assert cr.body(old) == "x = 1\n"
    new = record.merge(old, cr.content_delta(old, "x = 2\n", "d1", 2, "r1"))
    assert cr.body(new) == "x = 2\n"
    assert record.field_state(new, cr.LEGACY_BODY, lww_register).value is None
    retired = record.merge(new, cr.retire_delta(new, 3, "r1"))
    assert record.is_tombstone(retired) and cr.body(retired) is None


def test_a_body_that_does_not_unpack_reads_as_missing():
    bad = record.write({cr.PACKED_BODY: lww_register.set_value(
        lww_register.EMPTY, b"not zlib", 1, "r0")}, 1)
    assert cr.body(bad) is None


def test_pack_bounds_the_body():
    assert cr.unpack_body(cr.pack_body("a" * (cr.MAX_CHARS + 9))) == "a" * cr.MAX_CHARS


def test_links_are_written_with_the_body_and_retired_with_it():
    links = links_of("pkg/app.py", "from pkg import util\n")
    rec = cr.content_delta(None, "from pkg import util\n", "d1", 1, "r1", links.wire())
    assert cr.links(rec) == links
    assert cr.content_delta(rec, "from pkg import util\n", "d1", 2, "r1", links.wire()) is None
    assert cr.links(cr.content_delta(None, "x\n", "d1", 1, "r1")) is None  # none written
    assert cr.links(None) is None
    retired = record.merge(rec, cr.retire_delta(rec, 3, "r1"))
    assert record.is_tombstone(retired) and cr.links(retired) is None
