"""`contextpull/walk` — export a plain directory of documents, as ContextPull's ingest does.

Walks ``root`` without following symlinked folders, honouring ``.gitignore``,
``.contextpullignore`` and ``.repoctxignore`` files (gitignore syntax, via ``pathspec``,
each applying below its own folder), always skipping ``.git/`` and ``.repoctx/``, the
ignore files themselves, binary files (a NUL byte in the first 8 KiB) and files over
``max_bytes``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pathspec

from repoctx.contextpull.documents import Definition, SourceDocument
from repoctx.contextpull.index_text import DEFAULT_INDEX_BUDGET
from repoctx.contextpull.writer import ExportReport, write_export

IGNORE_FILES = (".gitignore", ".contextpullignore", ".repoctxignore")
SKIPPED_DIRS = frozenset({".git", ".repoctx"})
BINARY_PROBE_BYTES = 8192
DEFAULT_MAX_BYTES = 4 * 1024 * 1024

DefinitionsFor = Callable[[str, bytes], "tuple[Definition, ...] | None"]
_Rules = list[tuple[str, pathspec.GitIgnoreSpec]]


def is_binary(data: bytes) -> bool:
    """True when the first 8 KiB hold a NUL byte."""
    return b"\0" in data[:BINARY_PROBE_BYTES]


def _load_rules(folder: Path, rel: str) -> _Rules:
    rules: _Rules = []
    for name in IGNORE_FILES:
        file = folder / name
        if file.is_file():
            lines = file.read_text(encoding="utf-8", errors="replace").splitlines()
            rules.append((rel, pathspec.GitIgnoreSpec.from_lines(lines)))
    return rules


def _ignored(rules: _Rules, rel_path: str) -> bool:
    for base, spec in rules:
        inner = rel_path[len(base) + 1 :] if base else rel_path
        if spec.match_file(inner):
            return True
    return False


def iter_paths(root: Path) -> Iterator[str]:
    """Relative POSIX paths of the files to export under ``root``, unsorted."""
    stack: list[tuple[Path, str, _Rules]] = [(root, "", [])]
    while stack:
        folder, rel, inherited = stack.pop()
        rules = inherited + _load_rules(folder, rel)
        with os.scandir(folder) as entries:
            for entry in entries:
                child = f"{rel}/{entry.name}" if rel else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS and not _ignored(rules, child + "/"):
                        stack.append((Path(entry.path), child, rules))
                elif _wanted_file(entry, rules, child, root):
                    yield child


def _wanted_file(entry: os.DirEntry[str], rules: _Rules, rel: str, root: Path) -> bool:
    if not entry.is_file() or entry.name in IGNORE_FILES or _ignored(rules, rel):
        return False
    return _inside(root, Path(entry.path))


def _inside(root: Path, path: Path) -> bool:
    """False for a symlinked file that points outside ``root``."""
    return not path.is_symlink() or path.resolve().is_relative_to(root.resolve())


def iter_documents(
    root: Path,
    *,
    definitions_for: DefinitionsFor | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> Iterator[SourceDocument]:
    """The exportable text documents under ``root``."""
    for rel in iter_paths(root):
        path = root / rel
        if path.stat().st_size > max_bytes:
            continue
        data = path.read_bytes()
        if is_binary(data):
            continue
        definitions = definitions_for(rel, data) if definitions_for else None
        yield SourceDocument(rel, data, definitions)


def export_directory(
    root: Path,
    out: Path,
    *,
    previous: Path | None = None,
    index_budget: int = DEFAULT_INDEX_BUDGET,
    definitions_for: DefinitionsFor | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> ExportReport:
    """Export every document under ``root`` into the store ``out``.

    ``definitions_for(path, data)`` may supply code definitions per file (``None`` when
    it has none); without it, code files are sectioned by line groups.
    """
    root = Path(root)
    documents = iter_documents(root, definitions_for=definitions_for, max_bytes=max_bytes)
    return write_export(
        out, documents, corpus_root=str(root.resolve()), previous=previous,
        index_budget=index_budget,
    )  # fmt: skip
