"""reconcile/report: a pass's counters as JSON and text."""

import json

from repoctx.reconcile import PassReport


def test_skip_counts_every_file_and_keeps_twenty_paths():
    report = PassReport("demo")
    for i in range(25):
        report.skip(f"f{i}.bin", "binary")
    report.skip("huge.txt", "too large")
    assert report.skipped == {"binary": 25, "too large": 1}
    assert report.skipped_paths["binary"] == [f"f{i}.bin" for i in range(20)]


def test_as_json_is_plain_and_rounds_seconds():
    report = PassReport("demo", scanned=3, added=2)
    report.skip("a.bin", "binary")
    report.backfilled["xref"] += 4
    report.seconds["total"] = 1.234567
    out = report.as_json()
    assert json.loads(json.dumps(out)) == out
    assert out["skipped"] == {"binary": 1} and type(out["skipped"]) is dict
    assert out["backfilled"] == {"xref": 4} and out["seconds"] == {"total": 1.2346}
    assert out["repoId"] == "demo" and (out["scanned"], out["added"]) == (3, 2)


def test_text_summarises_and_lists_warnings():
    report = PassReport("demo", scanned=3, added=2, removed=1)
    report.skip("a.bin", "binary")
    report.warnings.append("content tree failed")
    text = report.text()
    assert text.startswith("indexed demo: 3 files scanned, 2 added")
    assert "skipped: 1 binary" in text and "  warning: content tree failed" in text
    assert "skipped: none" in PassReport("x").text()
