"""Why gold definitions miss the bundle: a SWE-bench split (Django by default), per category.

``bench/swe.py`` reports definition-level recall; this says where the misses are. For
every instance it asks ``repocontext_context`` at each budget, rebuilds the same plan
(the files considered, in order, with the search's hits per file), and puts each
``gold_span`` the bundle does not cover in the first category that holds:

- ``A`` the gold file is not in the plan (search and plan recall);
- ``B`` in the plan, but packed out (no entry);
- ``C`` an entry with a bare path or outline, no text;
- ``D`` a span of ``LONG_SPAN`` lines or more (a whole large class or a long function);
- ``E`` ``imports`` or a module-level line (``impl:N``);
- ``F`` a member of a class search hit (the header went, with other members);
- ``G`` a member of a class where search hit another member (a sibling);
- ``H`` a member of a class search did not touch;
- ``I`` a top-level definition search did not hit.

``F``–``I`` are split by the file's place in the plan: among the first
``units.RANK_ALL_FILES`` every definition competes for the slices, past them only the
search's hits do. Spans are located as ``bench/swe.py`` does (``Definitions``).

    python bench/swe_defs.py [--split sympy] [--series 3.0] [--limit N]
                             [--budgets 13000,50000]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # swe beside us

import swe  # noqa: E402

from repoctx.retrieval.bundle.rank import default_rank  # noqa: E402
from repoctx.retrieval.tuning import TUNING  # noqa: E402
from repoctx.tools.registry import call  # noqa: E402

RANK_ALL_FILES = TUNING.bundle.rank_all_files

_context = importlib.import_module("repoctx.retrieval.bundle.context")  # the module, not the tool
LONG_SPAN = 200
CATEGORIES = {
    "A": "gold file not in the plan",
    "B": "gold file in the plan, packed out",
    "C": "gold file as a bare path or outline only",
    "D": f"span of {LONG_SPAN}+ lines (whole large class, long function)",
    "E": "imports or a module-level line",
    "F": "member of a class search hit (not among its best members)",
    "G": "member of a class where search hit a sibling member",
    "H": "member of a class search did not touch",
    "I": "top-level definition search did not hit",
}


def category(name: str, lines: list[set[int]], entry: dict[str, Any] | None,
             has_text: bool, place: int | None, hits: list[str]) -> str:
    """The first category (``CATEGORIES``) that holds for a missed span; ``F``–``I`` get
    ``+`` when the file is past the plan's first ``RANK_ALL_FILES``."""
    if place is None:
        return "A"
    if entry is None:
        return "B"
    if not has_text:
        return "C"
    if min(len(option) for option in lines) >= LONG_SPAN:
        return "D"
    if name == "imports" or name.startswith("impl:"):
        return "E"
    owner = name.rpartition(".")[0]
    if not owner:
        found = "I"
    elif any(h == owner or h.endswith("." + owner) for h in hits):
        found = "F"
    elif any(h.rpartition(".")[0].endswith("." + owner) or h.rpartition(".")[0] == owner
             for h in hits):
        found = "G"
    else:
        found = "H"
    return found + ("+" if place >= RANK_ALL_FILES else "")


def plan_of(ws: Any, task: str, budget: int) -> dict[str, tuple[int, list[str]]]:
    """Per planned path, its place and the search's hits in it, as ``context`` plans."""
    size = _context.plan_size(budget, None)
    with ws.pinned():
        plan = _context._plan(ws, task, size, "auto", frozenset(), frozenset(), default_rank)
    return {s.path: (k, list(s.target.symbols)) for k, s in enumerate(plan.sources)}


def run(instances: list[swe.Instance], budgets: list[int]) -> dict[int, Counter[str]]:
    """Per budget: ``covered``, ``spans`` and each category's count of misses."""
    out: dict[int, Counter[str]] = defaultdict(Counter)
    by_tree: dict[str, list[swe.Instance]] = defaultdict(list)
    for inst in instances:
        by_tree[inst.tree].append(inst)
    for tree, group in by_tree.items():
        built = swe.workspace(group[0].split, tree, False, swe._log)
        ws, defs = built.ws, swe.Definitions(built.root)
        try:
            for inst in group:
                for budget in budgets:
                    _instance(ws, inst, defs, budget, out[budget])
        finally:
            ws.close()
            ws.store.close()
    return out


def _instance(ws: Any, inst: swe.Instance, defs: swe.Definitions, budget: int,
              tally: Counter[str]) -> None:
    bundle = call(ws, "repocontext_context",
                  {"task": inst.task, "responseBudgetTokens": budget})
    covered = swe.covered_lines(bundle)
    entries = {e["path"]: e for e in bundle.get("entries", [])}
    plan = plan_of(ws, inst.task, budget)
    for path, names in inst.spans.items():
        place, hits = plan.get(path, (None, []))
        for name in names:
            options = defs.lines(path, name)
            if options is None:
                continue
            tally["spans"] += 1
            if any(o <= covered.get(path, set()) for o in options):
                tally["covered"] += 1
                continue
            tally[category(name, options, entries.get(path), path in covered, place,
                           hits)] += 1


def report(out: dict[int, Counter[str]]) -> str:
    """A markdown table: per category, the misses at each budget."""
    budgets = sorted(out)
    head = "| category | " + " | ".join(f"@{b // 1000}k" for b in budgets) + " |"
    rows = [head, "|" + " --- |" * (len(budgets) + 1)]
    rows.append("| definitions covered / located | " + " | ".join(
        f"{out[b]['covered']} / {out[b]['spans']} "
        f"({100 * out[b]['covered'] / max(1, out[b]['spans']):.1f}%)" for b in budgets)
        + " |")
    for key, text in CATEGORIES.items():
        for mark, where in (("", ""), ("+", ", plan place 3+ (hits only)")):
            if mark and key not in "FGHI":
                continue
            label = key + mark
            rows.append(f"| {label} {text}{where if key in 'FGHI' and mark else ''} | "
                        + " | ".join(str(out[b][label]) for b in budgets) + " |")
    return "\n".join(rows) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=swe.SPLITS, default="django")
    parser.add_argument("--series", default=None, help="one Django release series, e.g. 3.0")
    parser.add_argument("--limit", type=int, default=None, help="first N instances only")
    parser.add_argument("--budgets", default=",".join(map(str, swe.BUDGETS)))
    args = parser.parse_args()
    instances = swe.load_instances(args.split, args.limit, args.series)
    if not instances:
        raise SystemExit(f"no {args.split} instances (series {args.series!r})")
    print(report(run(instances, [int(b) for b in args.budgets.split(",")])))


if __name__ == "__main__":
    main()
