"""retrieval/impact/since — the drift of the working tree from git's tree at a revision.

``changed {"since": REV}``: the files git says differ from REV's tree (its diff against
the working tree, plus untracked files it does not ignore), kept to the files the index
would see (the reconcile's walk: the same ignore rules, no store, no binary additions),
and what each differing file declared at REV, re-extracted from REV's text by the same
extractor the index uses, so a definition that only moved is not modified. Git is read
through ``repoctx.git``: a handful of processes whatever the diff's size. At most
``MAX_FILES`` files are compared (in path order); the answer says how many were cut.
Outside a git repository ``since`` is a tool error: the store keeps no snapshot of a
tree to compare with (session records hold deliveries, not the tree).
"""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from repoctx.errors import GitError, NotAGitRepositoryError, ToolError
from repoctx.extract import extract
from repoctx.git import blobs, commit_of, diff_names, untracked
from repoctx.reconcile import declarations_of
from repoctx.reconcile.nodes import file_node
from repoctx.reconcile.walk import DEFAULT_FILES
from repoctx.reconcile.walk_paths import seen
from repoctx.retrieval.impact.drift import Drift, binary, on_disk, stored_declarations
from repoctx.retrieval.search.rankings import matches_filter
from repoctx.retrieval.workspace import Workspace

MAX_FILES = 2000
"""The most differing files one answer compares: a diff against an old revision can span
the whole tree, and every file compared is read and extracted twice."""


LAST_INDEX = "index"
"""The ``since`` that asks for the last index as the baseline, inside git too."""


def default_baseline(root: Path) -> str | None:
    """``HEAD`` when ``root`` is a git checkout's top with a commit, else None (the last
    index): a watching server keeps the index current, so inside git what an agent
    changed is measured from the commit it started on. A tree nested in another
    repository (and ignored there, like a vendored or cached copy) is not that checkout."""
    if not (root / ".git").exists():
        return None
    try:
        commit_of(root, "HEAD")
    except GitError:  # no commit yet, or git missing: the last index is the baseline
        return None
    return "HEAD"


def git_drift(ws: Workspace, paths: list[str] | None, revision: str) -> Drift:
    """The drift of the working tree (limited to ``paths``) from ``revision``'s tree."""
    commit, names, loose = _listed(ws.root, revision)
    present = _present(ws, paths, [path for _, path in names] + loose)
    kinds = _kinds(ws, names, loose, present, paths)
    kept = sorted(kinds)[:MAX_FILES]
    old = _blobs(ws, commit, [p for p in kept if kinds[p] != "added"])
    added, updated, removed, before, gone = [], [], [], {}, {}
    for path in kept:
        if kinds[path] == "added":
            added.append(path)
        elif kinds[path] == "removed":
            removed.append(path)
            gone[path] = tuple(sorted(_declared(ws, path, old.get(path))))
        elif _differs(ws, path, old.get(path)):
            updated.append(path)
            before[path] = _declared(ws, path, old.get(path))
    return Drift(tuple(added), tuple(updated), tuple(removed), before=before, gone=gone,
                 baseline={"rev": revision, "commit": commit,
                           "cutFiles": len(kinds) - len(kept)})


def _listed(root: Path, revision: str) -> tuple[str, list[tuple[str, str]], list[str]]:
    """``revision``'s commit, git's diff of the working tree against it, and the untracked
    files git does not ignore; git's failures as tool errors."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        # git lists the untracked files (a walk of its own, the longest of the three:
        # ~50 ms on Django) while this thread names the commit and diffs against it
        loose = pool.submit(untracked, root)
        try:
            commit = commit_of(root, revision)
            return commit, diff_names(root, commit), loose.result()
        except NotAGitRepositoryError:
            raise ToolError(f"since needs a git repository: {root} is not in one (leave "
                            "since out to compare with the last index)") from None
        except GitError as exc:
            raise ToolError(f"since: {exc}") from None


def _present(ws: Workspace, paths: list[str] | None, listed: list[str],
             ) -> dict[str, tuple[int, int]]:
    """``path -> (size, mtime_ns)`` of the files git ``listed`` that the index would see
    (limited to ``paths``): judged along each one's own way down (``walk_paths``) while
    the tree is surely within the walk's bound on files (half of it, against a checkout
    of many files since the last index), else by a walk of the tree."""
    if len(ws.indexed()) + len(listed) < DEFAULT_FILES // 2:
        found = seen(ws.root, listed, store_dir=ws.store.path)
        if found is not None:
            return {p: s for p, s in found.items() if not paths or matches_filter(p, paths)}
    return on_disk(ws, paths)


def _kinds(ws: Workspace, names: list[tuple[str, str]], loose: list[str],
           present: dict[str, tuple[int, int]], paths: list[str] | None) -> dict[str, str]:
    """``path -> added | updated | removed`` of the files the answer may name."""
    store = _store_prefix(ws)
    kinds = {}
    for status, path in names:
        if path in present:  # "D" with the file on disk: untracked since, yet still there
            kinds[path] = "added" if status == "A" else "updated"
        elif status == "D" and (not paths or matches_filter(path, paths)) and not (
                store and path.startswith(store)) and not os.path.lexists(ws.root / path):
            kinds[path] = "removed"
        # any other file git lists is one the walk leaves out (ignored for repoctx, the
        # store's own): the index never sees it, so neither does the answer
    for path in loose:
        if path in present and path not in kinds:
            kinds[path] = "added"
    return {p: k for p, k in kinds.items() if k != "added" or not binary(ws, p)}


def _store_prefix(ws: Workspace) -> str | None:
    """The store's folder as a repository path prefix (``.repoctx/``), if inside."""
    rel = os.path.relpath(ws.store.path, ws.root)
    return None if rel.startswith("..") else rel.replace(os.sep, "/") + "/"


def _blobs(ws: Workspace, commit: str, paths: list[str]) -> dict[str, bytes]:
    try:
        return blobs(ws.root, commit, paths)
    except GitError as exc:
        raise ToolError(f"since: {exc}") from None


def _differs(ws: Workspace, path: str, old: bytes | None) -> bool:
    """False only when the working copy holds exactly the revision's bytes (git may list
    a file whose stat changed)."""
    try:
        return old is None or (ws.root / path).read_bytes() != old
    except OSError:
        return True


def _declared(ws: Workspace, path: str, data: bytes | None) -> dict:
    """The declarations of ``path``'s text ``data`` (none when there is no text): the
    stored ones when the index holds exactly these bytes, projected in the current shape
    with every digest (the common case, a commit then edits: no parse), else extracted."""
    if data is None:
        return {}
    node = ws.node(path)
    if (node is not None and node.has(file_node.SYMBOLS) and node.has(file_node.DECLS)
            and hashlib.sha256(data).hexdigest() == node.digest):
        stored = stored_declarations(ws, node)
        if len(stored) == len(node.symbols) and all(d.digest for d in stored.values()):
            return stored
    text = data.decode("utf-8", errors="replace")
    return declarations_of(path, extract(path, text), text)
