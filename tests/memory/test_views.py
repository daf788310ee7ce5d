"""The JSON views: ISO times, expiry fields, bulk views evaluate nothing."""

from __future__ import annotations

from repoctx.memory import views
from repoctx.memory.memory_record import Entry
from repoctx.memory.staleness import Staleness

ENTRY = Entry("repo/demo/mem/t/i", "t", "i", "note", title="T", body="x" * 2_000,
              tags=frozenset({"b", "a"}), links={"r": frozenset({"repo/demo/file/z",
                                                                  "repo/demo/file/a"})},
              expires_ms=10_500)


def test_iso_is_utc_with_milliseconds():
    assert views.iso(0) == "1970-01-01T00:00:00.000Z"
    assert views.iso(None) is None


def test_expiry_rounds_remaining_seconds_up_and_never_below_zero():
    assert views.expiry(10_500, 0) == {"expiresAtUtc": "1970-01-01T00:00:10.500Z",
                                       "remainingSeconds": 11}
    assert views.expiry(10_500, 20_000)["remainingSeconds"] == 0
    assert views.expiry(None, 0) == {"expiresAtUtc": None, "remainingSeconds": None}


def test_an_evaluated_view_sorts_and_reports_staleness():
    got = views.entry_view(ENTRY, 500, Staleness(("repo/demo/file/a",), ()))
    assert got["tags"] == ["a", "b"]
    assert got["links"] == {"r": ["repo/demo/file/a", "repo/demo/file/z"]}
    assert got["stale"] is True and got["danglingLinks"] == []
    assert got["remainingSeconds"] == 10 and "bodyTruncated" not in got


def test_a_bulk_view_evaluates_nothing_and_trims_the_body():
    got = views.entry_view(ENTRY, None, None, body_chars=100)
    assert got["stale"] is got["staleLinks"] is got["danglingLinks"] is None
    assert got["expiresAtUtc"] is None and got["remainingSeconds"] is None
    assert len(got["fields"]["body"]) == 100 and got["bodyTruncated"] is True


def test_a_missing_view_has_the_same_keys():
    assert set(views.missing("k", "t", "i")) <= set(views.entry_view(ENTRY, 0, Staleness()))
