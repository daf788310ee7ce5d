"""reconcile/coverage_paths — where coverage.py's measured files and test contexts are in the store.

coverage.py records absolute paths from wherever the suite ran (this checkout, a CI
runner's, a tox venv's site-packages), and test contexts in two spellings: pytest-cov's
``tests/test_x.py::TestA::test_b|run`` and ``dynamic_context = test_function``'s
``tests.test_x.TestA.test_b``. A path maps to the indexed file sharing its longest path
suffix: one that *is* that suffix wins; any other only when it alone shares it and the
suffix has two segments at least, and an installed copy (site-packages) always needs
two. Anything else is unmapped rather than guessed. Pure; no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

INSTALLED = frozenset({"site-packages", "dist-packages"})
"""Folders of installed copies: a bare file name inside them says nothing."""
_PARAMETERS = re.compile(r"\[.*\]$")


class PathMap:
    """Resolves measured paths and test contexts against the indexed files."""

    def __init__(self, paths: Iterable[str], root: Path) -> None:
        self._paths = set(paths)
        self._root = root.resolve().as_posix().rstrip("/") + "/"
        self._by_name: dict[str, list[tuple[str, ...]]] = {}
        for path in self._paths:
            parts = tuple(path.split("/"))
            self._by_name.setdefault(parts[-1], []).append(parts)

    def source(self, measured: str) -> str | None:
        """The indexed file a measured path is a copy of, or None."""
        posix = measured.replace("\\", "/")
        if posix.startswith(self._root) and posix[len(self._root):] in self._paths:
            return posix[len(self._root):]
        parts = tuple(p for p in posix.split("/") if p and p != ".")
        if not parts:
            return None
        shared = [(_shared_suffix(parts, c), c) for c in self._by_name.get(parts[-1], ())]
        if not shared:
            return None
        longest = max(k for k, _ in shared)
        best = [c for k, c in shared if k == longest]
        exact = [c for c in best if len(c) == longest]
        least = 2 if INSTALLED & set(parts) else 1
        if exact and longest >= least:
            return "/".join(exact[0])
        if len(best) == 1 and longest >= 2:
            return "/".join(best[0])
        return None

    def test(self, context: str) -> tuple[str, str] | None:
        """``(test file, test name)`` of a per-test context, or None (not a test's)."""
        context = context.split("|", 1)[0]
        if "::" in context:
            file, *names = context.split("::")
            path = self.source(file)
            return None if path is None or not names else (path, _name(names))
        parts = context.split(".")
        if not all(part.isidentifier() for part in parts):
            return None  # neither spelling: a label of the user's (``--context=ci``...)
        for cut in range(len(parts) - 1, 0, -1):
            path = self.source("/".join(parts[:cut]) + ".py")
            if path is not None:
                return path, _name(parts[cut:])
        return None


def _shared_suffix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How many trailing path segments ``a`` and ``b`` share."""
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def _name(parts: list[str]) -> str:
    """A test's name inside its file, without parameters (``TestA.test_b``)."""
    return ".".join(parts[:-1] + [_PARAMETERS.sub("", parts[-1])])
