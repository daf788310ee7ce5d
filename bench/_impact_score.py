"""The scorer of ``bench/impact.py``: one ``repocontext_changed`` answer against the truth.

Test entries come in two shapes: ``{"path", "names", "reason", ...}`` (a test file) and
the older ``{"symbol", "path"}`` (a test symbol, whose path is its test file); either way
the suggested test files are the entries' paths.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Outcome:
    """How one answer did on one edit."""

    hit: bool
    """The edited definition is named ``modified``."""
    false_positives: int
    """Other definitions named ``modified`` (none was edited)."""
    covering: int
    """Test files that truly execute the edited function."""
    found: int
    """Of those, the ones the answer suggests."""
    suggested: int
    """Test files the answer suggests."""
    seconds: float


def suggested_tests(entries: Iterable[dict[str, Any]]) -> set[str]:
    """The test files of an answer's ``tests`` entries, in either shape."""
    return {str(e["path"]) for e in entries if e.get("path")}


def score(answer: dict[str, Any], fq_name: str, path: str, covering: Iterable[str],
          seconds: float) -> Outcome:
    """Score the answer to an edit of ``fq_name`` (declared in ``path``)."""
    modified = {(s["fqName"], s["path"]) for s in answer.get("changedSymbols", ())
                if s.get("change") == "modified"}
    truth = set(covering)
    tests = suggested_tests(answer.get("tests", ()))
    return Outcome((fq_name, path) in modified, len(modified - {(fq_name, path)}),
                   len(truth), len(truth & tests), len(tests), seconds)


def summary(outcomes: list[Outcome]) -> dict[str, float | int | None]:
    """Totals and ratios over several edits (None where a ratio has no denominator)."""
    edits = len(outcomes)
    covering = sum(o.covering for o in outcomes)
    found = sum(o.found for o in outcomes)
    suggested = sum(o.suggested for o in outcomes)
    times = sorted(o.seconds for o in outcomes)
    return {
        "edits": edits,
        "modifiedRecall": sum(o.hit for o in outcomes) / edits if edits else None,
        "falsePositives": sum(o.false_positives for o in outcomes),
        "falsePositivesPerEdit": (sum(o.false_positives for o in outcomes) / edits
                                  if edits else None),
        "coveringTests": covering, "coveringFound": found, "suggestedTests": suggested,
        "testRecall": found / covering if covering else None,
        "testPrecision": found / suggested if suggested else None,
        "suggestedPerFound": suggested / found if found else None,
        "secondsP50": statistics.median(times) if times else None,
        "secondsMax": times[-1] if times else None,
    }
