"""Impact analysis scored against what the tests really execute.

Per project (``_impact_truth.PROJECTS``: PyPI sdists of different shapes, tests included)
the suite runs once under per-test coverage contexts: every library function gets the test
files that executed its body (the truth, cached and published, see ``_impact_truth``).
The pristine tree is indexed once (``repoctx index --embedder none``, a fresh process of
the checkout's repoctx), with the run's ``.coverage`` in its root and, in a second copy,
without it. Then each of a stable sample of covered functions is edited once (half in
place, keeping its span; half with a line inserted into its body, see ``_impact_edits``),
``repoctx call repocontext_changed '{}'`` runs in a fresh process from the tree's root
without re-indexing, and the file's bytes and mtime are restored exactly.

Scored per project (``_impact_score``): the edited definition named ``modified`` (recall),
other definitions named ``modified`` (false positives), covering test files suggested
(micro recall over all edits), suggested test files per covering one found, and the wall
time of the ``changed`` process.

    python bench/impact.py [--projects click,toolz] [--sample 20] [--no-coverage]
                           [--json out.json] [--out docs/benchmarks.md] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the _impact_* modules beside us

from _impact_edits import MODES, Edit, make_edit, sample  # noqa: E402
from _impact_score import Outcome, score, summary  # noqa: E402
from _impact_truth import PROJECTS, WORK, Project, fresh_tree, load_or_build  # noqa: E402
from _impact_ts import make_ts_edit  # noqa: E402
from _report import write_section  # noqa: E402

_CHECKOUT = Path(__file__).resolve().parents[1]
_OWN = _CHECKOUT / ".venv" / "bin" / "repoctx"
REPOCTX = [str(_OWN)] if _OWN.exists() else [sys.executable, "-m", "repoctx"]
"""The repoctx under test: the checkout's own."""
CALL_TIMEOUT = "300"
_STATIC = "without coverage"
"""The variant the targets are measured on: static evidence, no coverage data."""


def _log(message: str) -> None:
    print(f"[impact] {message}", file=sys.stderr, flush=True)


def _repoctx(tree: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], float]:
    """``repoctx ARGS`` as a fresh process in ``tree``; callers name the tree too, since a
    cached tree sits inside another repository, whose store the search upward would find."""
    env = {**os.environ, "REPOCTX_CALL_TIMEOUT": CALL_TIMEOUT}
    began = time.perf_counter()
    done = subprocess.run([*REPOCTX, *args], cwd=tree, env=env, capture_output=True,
                          text=True, check=False)
    return done, time.perf_counter() - began


def index(tree: Path) -> float:
    """Index ``tree`` from scratch; the seconds it took."""
    shutil.rmtree(tree / ".repoctx", ignore_errors=True)
    done, seconds = _repoctx(tree, "index", str(tree), "--embedder", "none")
    if done.returncode != 0:
        raise SystemExit(f"repoctx index {tree} failed:\n{(done.stderr or done.stdout)[-2000:]}")
    return seconds


def edits_of(project: Project, tree: Path, functions: list[dict[str, Any]], size: int,
             ) -> list[Edit]:
    """One edit per sampled function, the modes alternating (the other one when the
    function offers no edit of its turn's mode); a function offering none is left out
    for the next one of the sample."""
    out: list[Edit] = []
    for number, function in enumerate(sample(functions, 2 * size, project.key)):
        if len(out) == size:
            break
        data = (tree / function["path"]).read_bytes()
        turn = MODES[number % 2], MODES[1 - number % 2]
        edit = _edit(project, data, function, turn[0]) or _edit(project, data, function, turn[1])
        if edit is not None:
            out.append(edit)
    return out


def _edit(project: Project, data: bytes, function: dict[str, Any], mode: str) -> Edit | None:
    if project.language == "python":
        return make_edit(data, function, mode)
    made = make_ts_edit(data, function, mode, WORK / project.key)
    return None if made is None else Edit(function, mode, made[0], made[1])


def ask_changed(tree: Path, edit: Edit) -> tuple[dict[str, Any], float]:
    """``repocontext_changed`` with ``edit`` applied; the file restored (bytes and mtime)."""
    path = tree / edit.function["path"]
    before = path.stat()
    original = path.read_bytes()
    try:
        path.write_bytes(edit.data)
        done, seconds = _repoctx(tree, "call", "repocontext_changed", "{}", "--repo", str(tree))
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    try:
        answer = json.loads(done.stdout)
    except json.JSONDecodeError:
        answer = {"error": {"message": (done.stderr or done.stdout)[-500:]}}
    return answer, seconds


def run_variant(tree: Path, edits: list[Edit]) -> list[dict[str, Any]]:
    """Every edit's answer scored, with what was edited."""
    rows = []
    for edit in edits:
        answer, seconds = ask_changed(tree, edit)
        f = edit.function
        outcome = score(answer, f["fqName"], f["path"], f["tests"], seconds)
        rows.append({"fqName": f["fqName"], "path": f["path"], "kind": f["kind"],
                     "mode": edit.mode, "how": edit.how, "error": answer.get("error"),
                     "modifiedNamed": sorted(s["fqName"] for s in answer.get("changedSymbols", ())
                                             if s.get("change") == "modified"),
                     **asdict(outcome)})
    return rows


def _outcomes(rows: list[dict[str, Any]], mode: str | None = None) -> list[Outcome]:
    fields = Outcome.__dataclass_fields__
    return [Outcome(**{k: r[k] for k in fields}) for r in rows
            if mode is None or r["mode"] == mode]


def run_project(project: Project, size: int, coverage: bool) -> dict[str, Any]:
    """The project's truth, edits and scores under each variant."""
    found, tree_cov = load_or_build(project)
    trees = {_STATIC: fresh_tree(project, "tree-plain")}
    if coverage and project.language == "python":
        trees["with .coverage"] = tree_cov
    edits = edits_of(project, tree_cov, found["functions"], size)
    result: dict[str, Any] = {
        "project": project.name, "version": project.version, "shape": project.shape,
        "functions": len(found["functions"]),
        "covered": sum(1 for f in found["functions"] if f["tests"]),
        "testFiles": len(found["testFiles"]), "variants": {}}
    for variant, tree in trees.items():
        _log(f"{project.key}: indexing ({variant})")
        seconds = index(tree)
        _log(f"{project.key}: {len(edits)} edits ({variant})")
        rows = run_variant(tree, edits)
        result["variants"][variant] = {
            "indexSeconds": seconds, "edits": rows,
            "scores": {mode or "all": summary(_outcomes(rows, mode))
                       for mode in (None, *MODES)}}
    return result


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _num(value: float | None, unit: str = "") -> str:
    return "n/a" if value is None else f"{value:.2f}{unit}"


_COLUMNS = ("| {first} | edits | edited def named modified | false positives (per edit) | "
            "covering test files found | test precision | suggested per found | "
            "changed p50 / max |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")


def _row(first: str, s: dict[str, Any]) -> str:
    return (f"| {first} | {s['edits']} | {_pct(s['modifiedRecall'])} | {s['falsePositives']} "
            f"({_num(s['falsePositivesPerEdit'])}) | {s['coveringFound']}/{s['coveringTests']}"
            f" ({_pct(s['testRecall'])}) | {_pct(s['testPrecision'])} | "
            f"{_num(s['suggestedPerFound'])} | {_num(s['secondsP50'], ' s')} / "
            f"{_num(s['secondsMax'], ' s')} |")


def report(results: list[dict[str, Any]], size: int) -> str:
    """The markdown section: a summary, then a table per project."""
    lines = ["Every sampled function is covered by at least one test file; the truth is the "
             "set of test files whose pytest-cov contexts executed a line of its body. "
             f"Sample: {size} per project (seeded, mixing functions, methods and nested "
             "functions); modes alternate between an in-place token change and an inserted "
             "line. `changed` is a fresh `repoctx call repocontext_changed '{}'` process "
             "after the edit, with no re-index.", "",
             "- *edited def named modified*: share of edits whose function is in "
             "`changedSymbols` as `modified`; *false positives*: other definitions "
             "(functions, classes, variables) named `modified`, none of which was edited.",
             "- *covering test files found*: of the test files that truly execute the edited "
             "function, those in `tests` (micro recall over all edits); *test precision*: "
             "of the test files in `tests`, those truly covering; *suggested per found*: "
             "test files in `tests` per covering one found.",
             "- *with .coverage*: the suite's coverage.py data file sits in the tree root "
             "when it is indexed (Python projects only; the TypeScript truth comes from V8 "
             "coverage, which repoctx does not read).", "", "### Summary", "",
             _COLUMNS.format(first="project (coverage data)")]
    for res in results:
        for variant, data in res["variants"].items():
            lines.append(_row(f"{res['project']} ({variant})", data["scores"]["all"]))
    static = [o for res in results if _STATIC in res["variants"]
              for o in _outcomes(res["variants"][_STATIC]["edits"], None)]
    lines.append(_row(f"all projects ({_STATIC}: the targets' measure)", summary(static)))
    for res in results:
        lines += ["", f"### {res['project']} {res['version']} ({res['shape']})", "",
                  f"{res['functions']} functions, {res['covered']} covered by some of its "
                  f"{res['testFiles']} test files.", "", _COLUMNS.format(first="edit mode")]
        for variant, data in res["variants"].items():
            lines += [_row(f"{mode} ({variant})", s) for mode, s in data["scores"].items()]
            lines.append(f"| index ({variant}) | | | | | | | {data['indexSeconds']:.1f} s |")
        errors = sum(1 for d in res["variants"].values() for r in d["edits"] if r["error"])
        if errors:
            lines.append(f"\n{errors} `changed` calls failed (counted as empty answers).")
    return "\n".join(lines) + "\n"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--projects", default=",".join(p.name for p in PROJECTS),
                        help="comma-separated project names (default: all)")
    parser.add_argument("--sample", type=int, default=20, help="edits per project")
    parser.add_argument("--no-coverage", action="store_true",
                        help="only the index without the .coverage file")
    parser.add_argument("--json", type=Path, help="also write the full results here")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--no-write", action="store_true", help="do not touch --out")
    return parser.parse_args()


def main() -> None:
    args = arguments()
    wanted = args.projects.split(",")
    unknown = sorted(set(wanted) - {p.name for p in PROJECTS})
    if unknown:
        raise SystemExit(f"unknown project(s) {', '.join(unknown)}; known: "
                         f"{', '.join(p.name for p in PROJECTS)}")
    results = [run_project(p, args.sample, not args.no_coverage)
               for p in PROJECTS if p.name in wanted]
    body = report(results, args.sample)
    print(body)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    if not args.no_write:
        write_section(args.out, "impact", "Impact: `changed` against what tests execute", body)


if __name__ == "__main__":
    main()
