"""Start-up cost of the command line and the MCP server.

Every measurement is a fresh process, timed from spawn to exit (or to the answer),
interleaved round by round with the floor so that both see the same load:

- floor: ``python -c pass`` with the interpreter repoctx runs on;
- ``repoctx --version``: target <= 6x the floor;
- ``repoctx call repocontext_outline`` on an indexed copy of Flask's sdist (downloaded
  once by ``_corpus.flask_source``; indexed once, untimed): target <= 400 ms;
- MCP ``initialize``: ``repoctx serve --repo FLASK`` spawned by the official ``mcp``
  client over stdio, timed until ``initialize`` returns: target <= 600 ms.

Best and median of ``--runs`` rounds are reported. A target is judged on the best
round (the cost with the least interference from the machine's other work; the floor
is taken the same way), the median shows what the load added.

    python bench/cli.py [--runs 15] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report beside us

from _corpus import flask_source  # noqa: E402
from _report import write_section  # noqa: E402

VERSION_RATIO, CALL_MS, INITIALIZE_MS = 6.0, 400.0, 600.0
OUTLINED = "src/flask/app.py"


def repoctx_command() -> list[str]:
    """The ``repoctx`` console script beside this interpreter, else ``python -m repoctx``."""
    script = Path(sys.executable).with_name("repoctx")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "repoctx"]


def wall(command: list[str]) -> float:
    """Seconds from spawning ``command`` to its exit (it must succeed)."""
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def initialize(command: list[str], repo: Path) -> float:
    """Seconds from spawning ``repoctx serve`` to the end of the MCP ``initialize``."""
    params = StdioServerParameters(command=command[0],
                                   args=[*command[1:], "serve", "--repo", str(repo)])

    async def run() -> float:
        started = time.perf_counter()
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return time.perf_counter() - started

    return anyio.run(run)


def indexed_flask(tmp: Path, command: list[str]) -> Path:
    """A copy of Flask's sdist, indexed and exported (the cache stays pristine)."""
    repo = tmp / flask_source().name
    shutil.copytree(flask_source(), repo)
    subprocess.run([*command, "index", str(repo)], check=True, capture_output=True)
    return repo


def measure(runs: int, tmp: Path) -> dict[str, list[float]]:
    """Seconds per round of each measurement, rounds interleaved."""
    command = repoctx_command()
    repo = indexed_flask(tmp, command)
    call = [*command, "call", "repocontext_outline", json.dumps({"path": OUTLINED}),
            "--path", str(repo)]
    probes: dict[str, Callable[[], float]] = {
        "floor": lambda: wall([sys.executable, "-c", "pass"]),
        "version": lambda: wall([*command, "--version"]),
        "call": lambda: wall(call),
        "initialize": lambda: initialize(command, repo),
    }
    for probe in probes.values():  # warm the page cache; not counted
        probe()
    times: dict[str, list[float]] = {name: [] for name in probes}
    for _ in range(runs):
        for name, probe in probes.items():
            times[name].append(probe())
    return times


def table(times: dict[str, list[float]], runs: int) -> str:
    """The markdown section: a row per measurement, its target and whether it is met."""
    ms = {name: (min(t) * 1000, statistics.median(t) * 1000) for name, t in times.items()}
    floor_best, floor_median = ms["floor"]
    rows = [
        ("`python -c pass` (the floor)", "floor", "", None),
        ("`repoctx --version`", "version", f"<= {VERSION_RATIO:g}x floor",
         ms["version"][0] <= VERSION_RATIO * floor_best),
        (f"`repoctx call repocontext_outline` ({OUTLINED}, indexed Flask)", "call",
         f"<= {CALL_MS:g} ms", ms["call"][0] <= CALL_MS),
        ("MCP `initialize` (spawn `repoctx serve`, official client, stdio)", "initialize",
         f"<= {INITIALIZE_MS:g} ms", ms["initialize"][0] <= INITIALIZE_MS),
    ]
    lines = [f"Fresh processes, {runs} interleaved rounds; corpus `{flask_source().name}`.",
             "", "| measurement | best | median | best / floor best | target | met (best) |",
             "| --- | ---: | ---: | ---: | --- | --- |"]
    for label, name, target, met in rows:
        best, median = ms[name]
        verdict = "" if met is None else ("yes" if met else "**no**")
        lines.append(f"| {label} | {best:.0f} ms | {median:.0f} ms | "
                     f"{best / floor_best:.1f}x | {target} | {verdict} |")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    lines += ["", f"- Floor median {floor_median:.0f} ms; {os.cpu_count()} cores, shared with "
              f"other work: load average (1/5/15 min) {load} at the end.",
              "- Targets are judged on the best round; the median shows the load's share."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="interleaved timed rounds")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="repoctx-bench-cli-") as tmp:
        times = measure(args.runs, Path(tmp))
    body = table(times, args.runs)
    print(body)
    title = (f"Start-up of the CLI and the MCP server; targets: `--version` <= "
             f"{VERSION_RATIO:g}x `python -c pass`, one tool call <= {CALL_MS:g} ms, MCP "
             f"initialize <= {INITIALIZE_MS:g} ms")
    write_section(args.out, "cli", title, body)


if __name__ == "__main__":
    main()
