"""``repocontext_changed {"since": "HEAD"}`` on Django after three edits, as a user runs it:
a fresh ``repoctx call`` process, wall time from start to exit (issue 31's target: <= 1 s,
naming exactly the edited definitions).

A copy of Django's sdist (``_corpus``) becomes a git repository (one commit; the store is
excluded through ``.git/info/exclude``) and is indexed once (not timed). Three
definitions in three files are then edited: one in place (a comment appended to its last
line, so no line moves) and two by an inserted line (a statement added at the end of the
body, so every definition below it shifts). ``--repeat`` times, interleaved so that they
meet the same load:

- floor: ``repoctx call repocontext_index_status`` (the process start, the import and the
  store's open that every call pays);
- ``changed {"since": "HEAD"}``, checked to name exactly the three edited definitions as
  modified and nothing else (the first call after the index, timed apart, derives what
  later processes load from ``retrieval.derived_cache``: the indexed paths, the module
  map, the declarations and imports the answer looks up);
- ``changed {"since": "index"}`` (against the last index; ``{}`` in a git checkout means
  ``HEAD``), for comparison;
- in this process, the revision baseline alone (``impact.since.git_drift``: git's diff,
  untracked list and blobs, the walk, the re-extraction), to say what ``since`` adds and
  what the dependents and tests that every ``changed`` answer carries cost.

Then the same call through a real MCP client (the ``mcp`` SDK's stdio client) against
``repoctx serve --no-watch``: one call to warm the server, then ``--repeat`` timed calls
(each a new pinned call over the same store, so the per-call reads are all made again;
what stays warm is the process, its imports and what it derives once per store
generation), each checked to name the same three definitions.

    python bench/changed_since.py [--repeat 5] [--out docs/benchmarks.md] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report

import anyio  # noqa: E402
from _corpus import django_source  # noqa: E402
from _report import Results, load_average, percentile, run_and_write  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from repoctx.extract import extract  # noqa: E402
from repoctx.retrieval import open_workspace  # noqa: E402
from repoctx.retrieval.impact.since import git_drift  # noqa: E402

REPOCTX = [sys.executable, "-m", "repoctx"]
EDITS = (
    ("django/utils/text.py", "django.utils.text.capfirst", "insert"),
    ("django/db/models/query.py", "django.db.models.query.QuerySet.count", "in place"),
    ("django/forms/fields.py", "django.forms.fields.CharField.to_python", "insert"),
)
"""(file, definition, how): three files, one edit each."""
_GIT = ("-c", "user.name=bench", "-c", "user.email=bench@example.org",
        "-c", "commit.gpgsign=false")


def git(root: Path, *args: str) -> None:
    """Run git in ``root``; a failure stops the bench."""
    subprocess.run(("git", *_GIT, *args), cwd=root, check=True, capture_output=True)


def prepare(tmp: Path) -> Path:
    """Django's sdist copied, committed and indexed; the copy's root."""
    root = tmp / "django"
    shutil.copytree(django_source(), root)
    git(root, "init", "-q")
    (root / ".git" / "info").mkdir(exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text(".repoctx/\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "django")
    env = {**os.environ, "REPOCTX_DEFAULT_EMBEDDER": "none"}
    subprocess.run([*REPOCTX, "index", str(root), "--embedder", "none"], check=True,
                   capture_output=True, env=env)
    return root


def edit(root: Path, path: str, fq_name: str, how: str) -> None:
    """Edit ``fq_name``'s body in ``path``: in place, or by a line added at its end."""
    file = root / path
    text = file.read_text("utf-8")
    spans = {s.fq_name: (s.start_line, s.end_line) for s in extract(path, text)}
    if fq_name not in spans:
        raise SystemExit(f"{fq_name} is not in {path}: pick another definition")
    start, end = spans[fq_name]
    lines = text.splitlines(keepends=True)
    if how == "in place":
        lines[end - 1] = lines[end - 1].rstrip("\n") + "  # edited\n"
    else:
        indent = len(lines[start - 1]) - len(lines[start - 1].lstrip()) + 4
        lines.insert(end, " " * indent + "_edited = True\n")
    file.write_text("".join(lines), "utf-8")


def call(root: Path, tool: str, arguments: str) -> tuple[float, dict]:
    """Wall seconds of one ``repoctx call`` process, and its answer."""
    start = time.perf_counter()
    done = subprocess.run([*REPOCTX, "call", tool, arguments, "--repo", str(root)],
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{tool} {arguments} failed: {done.stdout}{done.stderr}")
    return wall, json.loads(done.stdout)


def drift_seconds(root: Path) -> float:
    """Seconds of the revision baseline alone, in this process (the store already open)."""
    with open_workspace(root, writable=False) as ws:
        start = time.perf_counter()
        git_drift(ws, None, "HEAD")
        return time.perf_counter() - start


def named(answer: dict) -> set[tuple[str, str]]:
    """``(fqName, change)`` of the definitions an answer names."""
    return {(s["fqName"], s["change"]) for s in answer["changedSymbols"]}


async def mcp_calls(root: Path, repeat: int, log: Path) -> tuple[list[float], bool]:
    """Wall seconds of ``repeat`` ``changed {"since": "HEAD"}`` calls over MCP stdio to a
    warm ``repoctx serve --no-watch``, and whether each named exactly the edits."""
    expected = {(fq, "modified") for _, fq, _ in EDITS}
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "repoctx", "serve", "--no-watch", "--repo", str(root)])
    walls, exact = [], True
    with log.open("w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            for number in range(repeat + 1):  # the first warms the server
                start = time.perf_counter()
                result = await session.call_tool("repocontext_changed", {"since": "HEAD"})
                wall = time.perf_counter() - start
                if result.is_error:
                    raise SystemExit(f"changed over MCP failed: {result.content}")
                exact = exact and named(json.loads(result.content[0].text)) == expected
                if number:
                    walls.append(wall)
    return walls, exact


def run(tmp: Path, res: Results, repeat: int) -> None:
    """Prepare, edit, then time the calls ``repeat`` times each, interleaved."""
    root = prepare(tmp)
    for path, fq_name, how in EDITS:
        edit(root, path, fq_name, how)
    expected = {(fq, "modified") for _, fq, _ in EDITS}
    first_floor = call(root, "repocontext_index_status", "{}")[0]
    first, answer = call(root, "repocontext_changed", '{"since": "HEAD"}')
    floor, since, index, baseline = [], [], [], []
    exact = named(answer) == expected
    for _ in range(repeat):
        floor.append(call(root, "repocontext_index_status", "{}")[0])
        wall, answer = call(root, "repocontext_changed", '{"since": "HEAD"}')
        since.append(wall)
        exact = exact and named(answer) == expected
        index.append(call(root, "repocontext_changed", '{"since": "index"}')[0])
        baseline.append(drift_seconds(root))
    p50 = percentile(floor, 50)
    res.add("`changed {since: HEAD}`, the first call after the index", first, first_floor)
    res.add("`changed {since: HEAD}` p50", percentile(since, 50), p50)
    res.add("`changed {since: HEAD}` p95 (wall, absolute)", percentile(since, 95),
            limit=1.0, target="<= 1 s")
    res.add("`changed {since: HEAD}` p95 against the floor's p95", percentile(since, 95),
            percentile(floor, 95))
    res.add("`changed {since: index}` (the last index) p50", percentile(index, 50), p50)
    res.add("revision baseline alone (in process: git, walk, re-extraction) p50",
            percentile(baseline, 50))
    res.add_text("exactly the 3 edited definitions named, in every run",
                 f"{'yes' if exact else 'no'} ({', '.join(fq for _, fq, _ in EDITS)})",
                 "exact definitions", exact)
    load = load_average()
    walls, exact_mcp = anyio.run(mcp_calls, root, repeat, tmp / "serve.log")
    res.add("MCP client, warm `serve --no-watch`: `changed {since: HEAD}` p50",
            percentile(walls, 50))
    res.add("MCP client, warm `serve --no-watch`: `changed {since: HEAD}` p95",
            percentile(walls, 95))
    res.add_text("MCP: exactly the 3 edited definitions named, in every call",
                 "yes" if exact_mcp else "no", "exact definitions", exact_mcp)
    res.notes.append(f"{repeat} runs of each, interleaved, after one first call of each; "
                     "floor = `repoctx call repocontext_index_status` (process start, "
                     "import, store open). Edits: "
                     + "; ".join(f"{fq} ({how})" for _, fq, how in EDITS) + ".")
    res.notes.append(f"MCP rows: the `mcp` SDK's stdio client, one warming call then "
                     f"{repeat} timed ones; load average (1/5 min) {load} when they began.")


def main() -> None:
    """Parse the options, run, write the section."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--no-write", action="store_true", help="do not touch --out")
    args = parser.parse_args()
    run_and_write(args.out, "changed-since", "changed since a git revision (Django, 3 edits)",
                  lambda tmp, res: run(tmp, res, args.repeat), write=not args.no_write)


if __name__ == "__main__":
    main()
