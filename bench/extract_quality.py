"""bench/extract_quality — Python extraction against `ast` over a source tree.

Usage: python bench/extract_quality.py DIR [--show N] [--out docs/benchmarks.md]

Reads every `*.py` under DIR (paths relative to DIR give the module names),
keeps the files `ast` parses, and prints precision and recall of the extracted
(fq_name, kind, start_line) definitions, the extraction time (extractor calls
only, one process, best of --repeat) next to the floor of a bare tree-sitter
parse of the same files, and the first N mismatches. With --out, the figures
also replace the `extract_quality` section of that report (see `_report.py`).
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

import tree_sitter_python  # noqa: E402
from tree_sitter import Language, Parser  # noqa: E402

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


def _time_extraction(sources: list[tuple[str, str]], repeat: int) -> tuple[float, int]:
    extract("warmup.py", "def f(): pass\n")  # build the parser outside the timing
    best, count = float("inf"), 0
    for _ in range(repeat):
        started = time.perf_counter()
        count = sum(len(extract(path, text)) for path, text in sources)
        best = min(best, time.perf_counter() - started)
    return best, count


def _time_parse_floor(sources: list[tuple[str, str]], repeat: int) -> float:
    """Best time of a bare tree-sitter parse of every file: the floor under extraction."""
    parser = Parser(Language(tree_sitter_python.language()))
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for _path, text in sources:
            parser.parse(text.encode("utf-8", "replace"))
        best = min(best, time.perf_counter() - started)
    return best


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


def _report(args: argparse.Namespace, sources: list[tuple[str, str]]) -> list[str]:
    oracle = _load_oracle()
    seconds, symbols = _time_extraction(sources, args.repeat)
    floor = _time_parse_floor(sources, args.repeat)
    score = oracle.score_sources(sources)
    same, compared = _end_line_agreement(sources)
    lines = [
        f"files: {len(sources)} read, {score.files} parsed by ast",
        f"definitions: {score.expected} in ast, {score.extracted} extracted, "
        f"{score.matched} matched",
        f"precision: {score.precision:.5f}  recall: {score.recall:.5f}",
        f"end_line agreement: {same}/{compared} = {same / max(compared, 1):.5f}",
        f"extraction: {seconds:.2f} s for {symbols} symbols (all {len(sources)} files, "
        f"one process, best of {args.repeat}); bare tree-sitter parse: {floor:.2f} s",
    ]
    for label, items in (("missing", score.missing), ("spurious", score.spurious)):
        lines.extend(f"  {label}: {path}: {item}" for path, item in items[: args.show])
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--show", type=int, default=20, help="mismatches to print")
    parser.add_argument("--repeat", type=int, default=3, help="timing runs; the best counts")
    parser.add_argument("--out", type=Path, default=None, help="report file to update")
    args = parser.parse_args(argv)
    lines = _report(args, _sources(args.root))
    print("\n".join(lines))
    if args.out is not None:
        sys.path.insert(0, str(Path(__file__).parent))
        from _report import write_section

        write_section(args.out, "extract_quality", f"Python extraction vs ast ({args.root.name})",
                      "```\n" + "\n".join(lines) + "\n```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
