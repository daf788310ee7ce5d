"""bench/extract_quality — Python extraction against `ast` over a source tree.

Usage: python bench/extract_quality.py DIR [--show N]

Reads every `*.py` under DIR (paths relative to DIR give the module names),
keeps the files `ast` parses, and prints precision and recall of the extracted
(fq_name, kind, start_line) definitions, the extraction time (extractor calls
only, one process), and the first N mismatches.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import sys
import time
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_REPO))

from repoctx.extract import extract  # noqa: E402


def _load_oracle():  # the comparison helper lives with the tests
    location = _REPO / "tests" / "extract" / "ast_oracle.py"
    spec = importlib.util.spec_from_file_location("ast_oracle", location)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["ast_oracle"] = module
    spec.loader.exec_module(module)
    return module


def _sources(root: Path) -> list[tuple[str, str]]:
    files = sorted(path for path in root.rglob("*.py") if path.is_file())
    return [(path.relative_to(root).as_posix(),
             path.read_bytes().decode("utf-8", "replace")) for path in files]


def _time_extraction(sources: list[tuple[str, str]]) -> tuple[float, int]:
    extract("warmup.py", "def f(): pass\n")  # build the parser outside the timing
    started = time.perf_counter()
    count = sum(len(extract(path, text)) for path, text in sources)
    return time.perf_counter() - started, count


def _end_line_agreement(sources: list[tuple[str, str]]) -> tuple[int, int]:
    """(definitions whose end_line equals ast's end_lineno, definitions compared)."""
    same = total = 0
    for path, text in sources:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        ends = {(node.lineno, node.name): node.end_lineno for node in ast.walk(tree)
                if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)}
        for symbol in extract(path, text):
            key = (symbol.start_line, symbol.name)
            if key in ends:
                total += 1
                same += ends[key] == symbol.end_line
    return same, total


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--show", type=int, default=20, help="mismatches to print")
    args = parser.parse_args(argv)
    oracle = _load_oracle()
    sources = _sources(args.root)
    seconds, symbols = _time_extraction(sources)
    score = oracle.score_sources(sources)
    same, compared = _end_line_agreement(sources)
    print(f"files: {len(sources)} read, {score.files} parsed by ast")
    print(f"definitions: {score.expected} in ast, {score.extracted} extracted, "
          f"{score.matched} matched")
    print(f"precision: {score.precision:.5f}  recall: {score.recall:.5f}")
    print(f"end_line agreement: {same}/{compared} = {same / max(compared, 1):.5f}")
    print(f"extraction: {seconds:.2f} s for {symbols} symbols "
          f"(all {len(sources)} files, one process)")
    for label, items in (("missing", score.missing), ("spurious", score.spurious)):
        for path, item in items[: args.show]:
            print(f"  {label}: {path}: {item}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
