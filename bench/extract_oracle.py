"""bench/extract_oracle — seam extractors against universal-ctags on real packages.

Usage: python bench/extract_oracle.py [--work DIR] [--show N]

Downloads real sources with the registries' own clients (`npm pack`), runs
`ctags --output-format=json --fields=+neK` over them as the independent oracle, and
prints per language: definitions precision and recall of (path, name, line) for the
kinds both sides define (ctags class/interface/enum/typeAlias/struct/trait -> our
`class`; function/method/methodSpec -> our `function`/`method`), end-line agreement
where ctags reports an end, and cold extraction files/s next to Python's (on the
Python files of the same machine run, `bench/extract_quality.py`'s corpus if given).
Excluded, and why: ctags `property`/`field`/`member` (class fields and struct members
are not symbols here unless they hold a function), `variable`/`constant`/`let`
(ctags also reports locals; we report module-level bindings only), `namespace`/
`module` (a qualifying scope here, not a symbol), `enumerator`, `getter`/`setter`
of object literals, and `.d.ts` files.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import time
from collections import Counter
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_REPO))

from repoctx.extract import extract, language_of  # noqa: E402

PACKAGES = {"typescript": "rxjs@7.8.1", "javascript": "zod@3.23.8"}
_CLASS_KINDS = {"class", "interface", "enum", "alias", "struct", "trait", "type", "union",
                "typedef"}
_FUNCTION_KINDS = {"function", "method", "methodSpec", "func", "generator"}
_SUFFIXES = {"typescript": (".ts", ".tsx"), "javascript": (".js", ".mjs", ".cjs"),
             "go": (".go",), "rust": (".rs",)}


def fetch(work: Path, spec: str) -> Path:
    """`npm pack spec` into `work` and unpack it; the package directory."""
    target = work / spec.replace("@", "-").replace("/", "-")
    if not target.exists():
        out = subprocess.run(["npm", "pack", spec, "--silent"], cwd=work, check=True,
                             capture_output=True, text=True).stdout.split()[-1]
        target.mkdir()
        with tarfile.open(work / out) as archive:
            archive.extractall(target, filter="data")
    return target


def sources(root: Path, language: str) -> list[tuple[str, str]]:
    """(relative path, text) of the language's files under `root`, `.d.ts` left out."""
    files = sorted(p for p in root.rglob("*") if p.is_file()
                   and p.name.endswith(_SUFFIXES[language]) and not p.name.endswith(".d.ts")
                   and "node_modules" not in p.parts and ".min." not in p.name)
    return [(p.relative_to(root).as_posix(), p.read_text("utf-8", "replace")) for p in files]


def oracle(root: Path, paths: list[str]) -> dict[tuple[str, str, int], int | None]:
    """ctags' definitions of comparable kinds: (path, name, line) -> end line or None."""
    out: dict[tuple[str, str, int], int | None] = {}
    for start in range(0, len(paths), 200):
        run = subprocess.run(["ctags", "--output-format=json", "--fields=+neK", "-f", "-",
                              *paths[start:start + 200]], cwd=root, capture_output=True,
                             text=True, check=True)
        for line in run.stdout.splitlines():
            tag = json.loads(line)
            if tag.get("_type") != "tag" or tag.get("kind") not in _CLASS_KINDS | _FUNCTION_KINDS:
                continue
            out[(tag["path"], tag["name"], tag["line"])] = tag.get("end")
    return out


def ours(files: list[tuple[str, str]]) -> tuple[dict[tuple[str, str, int], int], float]:
    """Our class/function/method definitions and the extraction time."""
    started = time.perf_counter()
    found = {}
    for path, text in files:
        for symbol in extract(path, text):
            if symbol.kind in ("class", "function", "method") and not symbol.overload:
                found[(path, symbol.name, symbol.start_line)] = symbol.end_line
    return found, time.perf_counter() - started


def compare(language: str, root: Path, show: int) -> dict[str, float]:
    """Precision, recall, end-line agreement and files/s of one language's sources."""
    files = sources(root, language)
    expected = oracle(root, [p for p, _ in files])
    got, seconds = ours(files)
    matched = set(expected) & set(got)
    with_end = [k for k in matched if expected[k] is not None]
    ends = sum(1 for k in with_end if expected[k] == got[k])
    for key in sorted(set(expected) - set(got))[:show]:
        print("  missed", key)
    for key in sorted(set(got) - set(expected))[:show]:
        print("  extra ", key)
    return {"files": len(files), "oracle": len(expected), "ours": len(got),
            "precision": len(matched) / max(1, len(got)),
            "recall": len(matched) / max(1, len(expected)),
            "end_lines": ends / max(1, len(with_end)), "with_end": len(with_end),
            "files_per_s": len(files) / max(seconds, 1e-9)}


def python_rate(root: Path) -> float:
    """Files/s of the Python extractor on `root`'s `.py` files."""
    files = [(p.relative_to(root).as_posix(), p.read_text("utf-8", "replace"))
             for p in sorted(root.rglob("*.py"))]
    started = time.perf_counter()
    for path, text in files:
        extract(path, text)
    return len(files) / max(time.perf_counter() - started, 1e-9)


def main() -> None:
    """Run every language's comparison and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/repoctx-extract-oracle"))
    parser.add_argument("--show", type=int, default=5)
    parser.add_argument("--python", type=Path, default=_REPO / "repoctx")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    extract("warm.ts", "let x = 1\n")
    rows = []
    for language, spec in PACKAGES.items():
        assert language_of("x" + _SUFFIXES[language][0]) == language
        print(language, spec)
        figures = compare(language, fetch(args.work, spec), args.show)
        rows.append((language, spec, figures))
    print("| language | package | files | ctags defs | ours | precision | recall "
          "| end lines (n) | files/s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for language, spec, f in rows:
        print(f"| {language} | {spec} | {f['files']} | {f['oracle']} | {f['ours']} "
              f"| {f['precision']:.4f} | {f['recall']:.4f} | {f['end_lines']:.4f} "
              f"({f['with_end']}) | {f['files_per_s']:.0f} |")
    print(f"| python | {args.python.name} (.py) | | | | | | | {python_rate(args.python):.0f} |")
    print(Counter(language for language, _, _ in rows))


if __name__ == "__main__":
    main()
