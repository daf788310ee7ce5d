"""Receipts: deterministic, distinct per field, unambiguous joins."""

from __future__ import annotations

import hashlib
import itertools
import json

from repoctx.retrieval.bundle.receipts import KINDS, receipt


def test_receipt_is_sha256_hex_of_the_json_array():
    expected = hashlib.sha256(
        json.dumps(["r", "a.py", "h", "slice", "m.f"], separators=(",", ":")).encode()
    ).hexdigest()
    assert receipt("r", "a.py", "h", "slice", "m.f") == expected
    assert len(expected) == 64


def test_each_field_changes_the_receipt():
    base = ("r", "a.py", "h", "slice", "k")
    seen = {receipt(*base)}
    for i in range(5):
        changed = list(base)
        changed[i] += "x"
        seen.add(receipt(*changed))
    assert len(seen) == 6


def test_joins_cannot_be_confused():
    pairs = [("a", "b|c"), ("a|b", "c"), ("a\x1fb", "c"), ("a", "\x1fbc"), ('a","b', "c")]
    got = {receipt("r", p, h, "file") for p, h in pairs}
    assert len(got) == len(pairs)


def test_kinds_give_distinct_receipts():
    got = {receipt("r", "a.py", "h", k) for k in KINDS}
    assert len(got) == len(KINDS)
    assert all(a != b for a, b in itertools.combinations(got, 2))
