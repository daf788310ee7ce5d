"""The TypeScript project of ``bench/impact.py``: its truth and its edits.

The npm tarball (``npm pack``, tests included) is unpacked once; vitest and its V8
coverage provider are installed beside the tree (not in it). Each test file runs alone
under coverage; a function's tests are the test files that executed a line of its body
(the lines after its first, less those of the definitions nested in it). Functions and
their spans come from repoctx's extractor (there is no TypeScript parser here).

Edits are textual, checked by esbuild (installed with vitest) to still compile:
``inplace`` adds 1 to the first number literal on a body line of its own (else doubles the
``;`` ending one of its statements), ``insert`` puts
``void 0;`` on a line of its own after the line opening the body.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from _corpus import _safe_extract

from repoctx.extract import extract

_RUNNER = ("vitest@2.1.9", "@vitest/coverage-v8@2.1.9")
_NUMBER = re.compile(rb"(?<![\w.$'\"`])\d+(?![\w.'\"`])")
_CONFIG = """export default {{
  cacheDir: {cache},
  resolve: {{ conditions: {conditions} }},
  test: {{ coverage: {{ provider: "v8", include: {include}, reporter: ["json"] }} }},
}};
"""


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)


def pristine(name: str, version: str, folder: Path) -> Path:
    """The unpacked npm tarball of ``name@version`` (downloaded once)."""
    root = folder / "pristine" / "package"
    if root.is_dir():
        return root
    folder.mkdir(parents=True, exist_ok=True)
    done = _run(["npm", "pack", f"{name}@{version}", "--silent"], folder)
    if done.returncode != 0:
        raise SystemExit(f"npm pack {name}@{version} failed:\n{done.stderr[-2000:]}")
    archive = folder / done.stdout.strip().splitlines()[-1]
    shutil.rmtree(folder / "pristine", ignore_errors=True)
    (folder / "pristine").mkdir()
    return _safe_extract(archive, folder / "pristine")


def runner(folder: Path) -> Path:
    """vitest installed in ``folder`` (beside the trees, which node resolves up to)."""
    vitest = folder / "node_modules" / "vitest" / "vitest.mjs"
    if not vitest.exists():
        (folder / "package.json").write_text('{"private": true}\n')
        done = _run(["npm", "install", "--no-save", "--no-audit", "--no-fund", *_RUNNER],
                    folder)
        if done.returncode != 0:
            raise SystemExit(f"npm install of vitest failed:\n{done.stderr[-2000:]}")
    return vitest


def _config(folder: Path, code: str, conditions: tuple[str, ...]) -> Path:
    path = folder / "vitest.config.mjs"
    path.write_text(_CONFIG.format(cache=json.dumps(str(folder / "vite-cache")),
                                   conditions=json.dumps(list(conditions)),
                                   include=json.dumps([f"{code}/**/*.ts"])))
    return path


def covered_lines(folder: Path, tree: Path, test: str, code: str,
                  conditions: tuple[str, ...]) -> dict[str, set[int]]:
    """Relative path -> the lines of the library that the test file ``test`` executed."""
    out_dir = folder / "cov" / test.replace("/", "_")
    shutil.rmtree(out_dir, ignore_errors=True)
    _run(["node", str(runner(folder)), "run", "--config", str(_config(folder, code, conditions)),
          "--root", str(tree), test, "--coverage.enabled",
          f"--coverage.reportsDirectory={out_dir}"], tree)
    report = out_dir / "coverage-final.json"
    if not report.exists():
        return {}
    hits: dict[str, set[int]] = {}
    for name, entry in json.loads(report.read_text()).items():
        rel = Path(name).resolve().relative_to(tree.resolve()).as_posix()
        hits[rel] = {entry["statementMap"][k]["start"]["line"]
                     for k, count in entry["s"].items() if count}
    return hits


def definitions(path: str, text: str) -> list[dict[str, Any]]:
    """The functions and methods of a file: name, kind, span, own body lines."""
    symbols = [s for s in extract(path, text) if s.kind in ("function", "method")]
    out = []
    for sym in symbols:
        inner = [s for s in symbols if s is not sym and sym.start_line <= s.start_line
                 and s.end_line <= sym.end_line and (s.start_line, s.end_line)
                 != (sym.start_line, sym.end_line)]
        own = set(range(sym.start_line + 1, sym.end_line + 1))
        for s in inner:
            own -= set(range(s.start_line + 1, s.end_line + 1))
        nested = any(s.start_line <= sym.start_line and sym.end_line <= s.end_line
                     and (s.start_line, s.end_line) != (sym.start_line, sym.end_line)
                     for s in symbols)
        out.append({"path": path, "qualname": sym.fq_name, "fqName": sym.fq_name,
                    "kind": "nested" if nested else sym.kind, "line": sym.start_line,
                    "endLine": sym.end_line, "own": sorted(own)})
    return out


def _compiles(data: bytes, folder: Path) -> bool:
    esbuild = folder / "node_modules" / "esbuild" / "bin" / "esbuild"
    done = subprocess.run([str(esbuild), "--loader=ts", "--log-level=error"], input=data,
                          capture_output=True, check=False)
    return done.returncode == 0


def _inplace(lines: list[bytes], own: list[int]) -> tuple[str, bytes] | None:
    """A number literal + 1, else a second ``;`` after a statement's."""
    for number in own:
        line = lines[number - 1]
        match = _NUMBER.search(line.split(b"//", 1)[0])
        if match:
            new = line[:match.start()] + str(int(match.group()) + 1).encode() + line[match.end():]
            return "number+1", b"".join([*lines[:number - 1], new, *lines[number:]])
    for number in own:
        line = lines[number - 1]
        body = line.rstrip(b"\r\n")
        if body.endswith(b";") and b"//" not in body:
            new = body + b";" + line[len(body):]
            return "extra ;", b"".join([*lines[:number - 1], new, *lines[number:]])
    return None


def _insert(lines: list[bytes], function: dict[str, Any]) -> bytes | None:
    for number in range(function["line"], function["endLine"] - 1):
        if lines[number - 1].rstrip().endswith(b"{"):
            following = lines[number]
            indent = following[:len(following) - len(following.lstrip())].rstrip(b"\r\n")
            return b"".join([*lines[:number], indent + b"void 0;\n", *lines[number:]])
    return None


def make_ts_edit(data: bytes, function: dict[str, Any], mode: str, folder: Path,
                 ) -> tuple[str, bytes] | None:
    """``(how, new bytes)`` of one edit of ``mode``, None when none compiles."""
    lines = data.splitlines(keepends=True)
    if mode == "inplace":
        made = _inplace(lines, function["own"])
    else:
        inserted = _insert(lines, function)
        made = None if inserted is None else ("void 0; line", inserted)
    return made if made is not None and _compiles(made[1], folder) else None
