"""bench/_swe_report: the splits side by side, a split not run shown as a dash."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _swe_report import side_by_side  # noqa: E402


def _summary() -> dict:
    return {"instances": 3, "gold_files": 4, "wall_s": 12.0, "first_entry_gold_13k": 66.7,
            "edited_lines": {"13000": 50.0}, "edited_lines_bm25": {"13000": 25.0},
            "edited_lines_files": 4, "context": {"13000": {"all": 100.0}},
            "bm25": {"all@13000": 33.3, "recall@1": 0.0}, "search": {"recall@1": 66.7},
            "latency_ms": {"context13k_p95": 120.4}}


def test_the_splits_run_fill_their_column_and_the_others_show_a_dash():
    text = side_by_side({"sympy": _summary()}, (13_000,), (1,))
    lines = text.splitlines()
    assert lines[0] == "| measure | Django | sympy | sphinx |"
    assert "| **edited lines delivered** @13k: repocontext / BM25 | — | **50.0** / 25.0% | — |" \
        in lines
    assert "| context @13k latency p95, in process | — | 120 ms | — |" in lines
    assert "- Run: sympy 12 s." in lines
    assert "Gold files counted: sympy 4." in text
