"""reconcile/content_record: a bounded body with its digest; retired to a tombstone."""

from repoctx.crdt import record
from repoctx.reconcile import content_record as cr


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
