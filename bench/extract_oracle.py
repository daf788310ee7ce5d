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
of object literals, `.d.ts` files, and test files (our `describe`/`it` test symbols
have no counterpart in the oracles).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

_REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(_REPO))

from repoctx.extract import extract, is_test_path, language_of  # noqa: E402

TYPESCRIPT = "typescript@5.6.3"
NPM = [("typescript", "rxjs@7.8.1"), ("javascript", "zod@3.23.8")]
DEBIAN = [("go", "golang-github-spf13-cobra-dev"), ("go", "golang-github-stretchr-testify-dev"),
          ("rust", "librust-regex-syntax-dev"), ("rust", "librust-serde-json-dev"),
          ("rust", "librust-clap-dev")]
_CLASS_KINDS = {"class", "interface", "enum", "alias", "struct", "trait", "type", "union",
                "typedef"}
_FUNCTION_KINDS = {"function", "method", "methodSpec", "func", "generator", "macro"}
_BODY_KINDS = {"function", "method", "func"}
_SUFFIXES = {"typescript": (".ts", ".tsx"), "javascript": (".js", ".mjs", ".cjs"),
             "go": (".go",), "rust": (".rs",)}
_CTAGS = {"go": "Go", "rust": "Rust"}  # ctags' parser names


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


def fetch_deb(work: Path, package: str) -> Path:
    """`apt-get download package` into `work` and unpack it (`dpkg-deb -x`, nothing is
    installed); the unpacked tree. Debian's `golang-*-dev` / `librust-*-dev` packages
    ship Go and Rust sources."""
    target = work / package
    if not target.exists():
        subprocess.run(["apt-get", "download", "-q", package], cwd=work, check=True,
                       capture_output=True)
        deb = next(work.glob(f"{package}_*.deb"))
        target.mkdir()
        subprocess.run(["dpkg-deb", "-x", str(deb), str(target)], check=True)
    return target


def sources(root: Path, language: str) -> list[tuple[str, str]]:
    """(relative path, text) of the language's files under `root`, `.d.ts` left out."""
    files = sorted(p for p in root.rglob("*") if p.is_file()
                   and p.name.endswith(_SUFFIXES[language]) and not p.name.endswith(".d.ts")
                   and "node_modules" not in p.parts and ".min." not in p.name
                   and not is_test_path(p.relative_to(root).as_posix()))
    return [(p.relative_to(root).as_posix(), p.read_text("utf-8", "replace")) for p in files]


def ctags_oracle(root: Path, paths: list[str], language: str,
                 ) -> dict[tuple[str, str, int], int | None]:
    """ctags' definitions of comparable kinds: (path, name, line) -> end line or None.

    ctags is held to `language`'s parser (by file name alone it reads serde_json's
    `macros.rs` as RPM macros and tags nothing). Tags inside a function or method
    body (any enclosing scope is a function or method tag of the file) are left out,
    like ours."""
    out: dict[tuple[str, str, int], int | None] = {}
    for start in range(0, len(paths), 200):
        run = subprocess.run(["ctags", f"--languages={_CTAGS[language]}",
                              "--output-format=json", "--fields=+neKZ", "-f", "-",
                              *paths[start:start + 200]], cwd=root, capture_output=True,
                             text=True, check=True)
        tags = [tag for line in run.stdout.splitlines()
                if (tag := json.loads(line)).get("_type") == "tag"]
        bodies = {(t["path"], _scoped(t)) for t in tags if t.get("kind") in _BODY_KINDS}
        for tag in tags:
            if tag.get("kind") not in _CLASS_KINDS | _FUNCTION_KINDS:
                continue
            scope = tag.get("scope", "")
            parts = [p for p in scope.replace("::", ".").split(".") if p]
            if tag.get("scopeKind") in _BODY_KINDS or any(
                    (tag["path"], ".".join(parts[:n])) in bodies for n in range(1, len(parts) + 1)):
                continue
            out[(tag["path"], tag["name"], tag["line"])] = tag.get("end")
    return out


def _scoped(tag: dict) -> str:
    scope = tag.get("scope", "").replace("::", ".")
    return f"{scope}.{tag['name']}" if scope else tag["name"]


def typescript_oracle(work: Path, root: Path, paths: list[str],
                      ) -> dict[tuple[str, str, int], int | None]:
    """The TypeScript compiler's definitions (`oracles/ts_definitions.js`); an overload
    group (bodiless signatures, then the implementation) counts once, at its first line,
    ending where the implementation ends."""
    compiler = fetch(work, TYPESCRIPT) / "package" / "lib" / "typescript.js"
    run = subprocess.run(["node", str(_REPO / "bench" / "oracles" / "ts_definitions.js"),
                          str(compiler), str(root)], input="\n".join(paths), text=True,
                         capture_output=True, check=True)
    out: dict[tuple[str, str, int], int | None] = {}
    pending: dict[tuple[str, str], int] = {}
    for line in run.stdout.splitlines():
        tag = json.loads(line)
        key = (tag["path"], tag["name"])
        if tag["overload"]:
            pending.setdefault(key, tag["line"])
            continue
        out[(tag["path"], tag["name"], pending.pop(key, tag["line"]))] = tag["end"]
    for (path, name), start in pending.items():  # signatures never implemented (`declare`)
        out[(path, name, start)] = None
    return out


def ours(files: list[tuple[str, str]]) -> tuple[dict[tuple[str, str, int], int], float]:
    """Our class/function/method definitions and the extraction time.

    An overload group (TypeScript signatures then the implementation) counts once, at
    its first line, ending with the implementation; definitions inside a function or
    method are left out (the oracles are told to leave them out too).
    """
    started = time.perf_counter()
    extracted = [(path, extract(path, text)) for path, text in files]
    seconds = time.perf_counter() - started
    found = {}
    for path, symbols in extracted:
        kinds = {s.fq_name: s.kind for s in symbols}
        groups: dict[str, list] = {}
        for symbol in symbols:
            if symbol.kind in ("class", "function", "method") and not _in_function(
                    symbol.fq_name, kinds):
                groups.setdefault(symbol.fq_name, []).append(symbol)
        for group in groups.values():
            if any(s.overload for s in group) and not all(s.overload for s in group):
                start = min(s.start_line for s in group)
                end = max(s.end_line for s in group if not s.overload)
                found[(path, group[0].name, start)] = end
            else:
                found.update(((path, s.name, s.start_line), s.end_line) for s in group)
    return found, seconds


def _in_function(fq: str, kinds: dict[str, str]) -> bool:
    """True if a proper prefix of `fq` (cut at a separator) names a function or method."""
    for index in range(len(fq) - 1, 0, -1):
        if fq[index] in ".:" and kinds.get(fq[:index].rstrip(":")) in ("function", "method"):
            return True
    return False


def closing_brace_ends(files: list[tuple[str, str]], keys: set[tuple[str, str, int]],
                       got: dict[tuple[str, str, int], int]) -> tuple[int, int]:
    """For an oracle without end lines (ctags' Rust parser): how many of our end lines
    hold the closing `}` (or `;`) at the indentation of the definition's first line, in
    rustfmt-formatted code, of those whose first line opens a block."""
    texts = {path: text.split("\n") for path, text in files}
    checked = agreed = 0
    for key in keys:
        lines = texts[key[0]]
        first, last = lines[key[2] - 1], lines[got[key] - 1]
        if first.rstrip().endswith(";"):
            continue
        checked += 1
        indent = first[:len(first) - len(first.lstrip())]
        agreed += last.startswith(indent + "}") or (
            last.startswith(indent) and last.rstrip().endswith(("}", ";")))
    return agreed, checked


def compare(language: str, work: Path, root: Path, show: int) -> dict[str, float]:
    """Precision, recall, end-line agreement and files/s of one language's sources."""
    files = sources(root, language)
    paths = [p for p, _ in files]
    expected = (typescript_oracle(work, root, paths) if language in ("typescript", "javascript")
                else ctags_oracle(root, paths, language))
    got, seconds = ours(files)
    matched = set(expected) & set(got)
    with_end = [k for k in matched if expected[k] is not None]
    ends = sum(1 for k in with_end if expected[k] == got[k])
    end_oracle = "oracle"
    if not with_end:  # ctags' Rust parser reports no end lines
        ends, checked = closing_brace_ends(files, matched, got)
        with_end, end_oracle = [None] * checked, "closing brace"
    for key in sorted(set(expected) - set(got))[:show]:
        print("  missed", key)
    for key in sorted(set(got) - set(expected))[:show]:
        print("  extra ", key)
    for key in [k for k in matched if expected[k] not in (None, got[k])][:show]:
        print("  end   ", key, expected[key], got[key])
    return {"files": len(files), "oracle": len(expected), "ours": len(got),
            "precision": len(matched) / max(1, len(got)),
            "recall": len(matched) / max(1, len(expected)),
            "end_lines": ends / max(1, len(with_end)), "with_end": len(with_end),
            "end_oracle": end_oracle, "files_per_s": len(files) / max(seconds, 1e-9),
            "mb_per_s": sum(len(t.encode()) for _, t in files) / 1e6 / max(seconds, 1e-9),
            "index_files_per_s": cold_index(files, work, language)}


def cold_index(files: list[tuple[str, str]], work: Path, name: str) -> float:
    """Files/s of a cold `repoctx index` (walk, read, extract, project, export) of just
    `files`, copied into a fresh directory: one subprocess's wall time less the floor
    of indexing a one-file tree (start-up, store creation), measured in the same run.
    A small package is copied into `copy-N/` folders up to 300 files, so the fixed cost
    does not drown the per-file cost."""
    copies = max(1, -(-300 // max(1, len(files))))
    files = [(f"copy-{n}/{path}", text) for n in range(copies) for path, text in files]
    return len(files) / max(_index_seconds(files, work, name)
                            - _index_seconds([("README", "x\n")], work, "floor"), 1e-3)


def _index_seconds(files: list[tuple[str, str]], work: Path, name: str) -> float:
    tree = work / f"cold-{name}"
    if tree.exists():
        shutil.rmtree(tree)
    for path, text in files:
        target = tree / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "repoctx", "index", str(tree), "--json"],
                   check=True, capture_output=True, cwd=_REPO)
    return time.perf_counter() - started


def python_rate(root: Path) -> tuple[float, float]:
    """Files/s and MB/s of the Python extractor on `root`'s `.py` files."""
    files = [(p.relative_to(root).as_posix(), p.read_text("utf-8", "replace"))
             for p in sorted(root.rglob("*.py"))]
    started = time.perf_counter()
    for path, text in files:
        extract(path, text)
    seconds = max(time.perf_counter() - started, 1e-9)
    return len(files) / seconds, sum(len(t.encode()) for _, t in files) / 1e6 / seconds


def main() -> None:
    """Run every language's comparison and print a Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "repoctx-extract-oracle")
    parser.add_argument("--show", type=int, default=5)
    parser.add_argument("--python", type=Path, default=_REPO / "repoctx")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    extract("warm.ts", "let x = 1\n")
    rows = []
    jobs = [(lang, spec, lambda spec=spec: fetch(args.work, spec)) for lang, spec in NPM]
    jobs += [(lang, spec, lambda spec=spec: fetch_deb(args.work, spec)) for lang, spec in DEBIAN]
    for language, spec, download in jobs:
        assert language_of("x" + _SUFFIXES[language][0]) == language
        print(language, spec)
        rows.append((language, spec, compare(language, args.work, download(), args.show)))
    print("| language | package | oracle | files | oracle defs | ours | precision | recall "
          "| end lines (checked, by) | extract files/s (MB/s) | cold index files/s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for language, spec, f in rows:
        oracle = "tsc " + TYPESCRIPT if language in ("typescript", "javascript") else "ctags"
        print(f"| {language} | {spec} | {oracle} | {f['files']} | {f['oracle']} | {f['ours']} "
              f"| {f['precision']:.4f} | {f['recall']:.4f} | {f['end_lines']:.4f} "
              f"({f['with_end']}, {f['end_oracle']}) | {f['files_per_s']:.0f} "
              f"({f['mb_per_s']:.2f}) | {f['index_files_per_s']:.0f} |")
    files_per_s, mb_per_s = python_rate(args.python)
    python_files = [(p.relative_to(args.python).as_posix(), p.read_text("utf-8", "replace"))
                    for p in sorted(args.python.rglob("*.py"))]
    print(f"| python | {args.python.name} (.py) | | {len(python_files)} | | | | | | "
          f"{files_per_s:.0f} ({mb_per_s:.2f}) "
          f"| {cold_index(python_files, args.work, 'python'):.0f} |")

if __name__ == "__main__":
    main()
