"""server/repos — the repositories one server serves, and which one a tool call is for.

``repoctx serve --repo A --repo B`` serves each repository as a one-repository server
does: its own store and export, opened at the first call that needs it (so a repository
indexed after the server started needs no restart, and one without an index answers "no
index" while the others work). A call names its repository with ``repo``: an id as
``repoctx index --json`` prints it, or the repository's folder. Without it, the call goes
to the repository its own arguments point at (:func:`pointed_at`); with several
repositories and nothing to tell them apart it is a tool error listing the ids. One
repository per call: no tool answers from several at once.

The tool list stays as it was with one repository (no ``repo``, the ≤3,000-token list
is untouched); with several, ``repo`` takes the place of ``repoId`` in each tool's
published schema (and joins ContextPull's, which have none), described once in the
server's instructions rather than 21 times in the list.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path, PureWindowsPath
from typing import TYPE_CHECKING, Any

from repoctx.errors import RepoctxError, ToolError
from repoctx.store import default_repo_id
from repoctx.tools.registry import PATH_ARGUMENTS

from .bounded_calls import BoundedCalls

if TYPE_CHECKING:  # the workspace loads with the first call, not when the server starts
    from repoctx.retrieval import Workspace

REPO = "repo"
"""The argument that names a call's repository (taken off before the tool sees the call)."""

REPO_MAX_CHARS = 4096
"""The longest ``repo`` value looked at: a folder path, at most what a path argument may be."""

_PATHS = tuple(sorted(PATH_ARGUMENTS))  # in a stable order, so errors list repos alike
_GLOB = re.compile(r"[*?\[]")
_KEY = re.compile(r"^repo/([^/]+)/")  # a store key names its repository (seed 003 grammar)


class Repo:
    """One served repository: its folder, how its workspace opens, and its call runner
    once a call opened it."""

    def __init__(self, root: Path | None, opener: Callable[[], Workspace],
                 derived_id: str | None = None) -> None:
        self._root = root.resolve() if root is not None else None
        self._open = opener
        self._derived_id = derived_id
        self._calls: BoundedCalls | None = None

    @property
    def root(self) -> Path | None:
        """The repository's folder (None for a bare workspace not opened yet)."""
        return self._calls.ws.root.resolve() if self._calls is not None else self._root

    @property
    def id(self) -> str:
        """The store's repository id once open, else the id derived from the folder."""
        if self._calls is not None:
            return self._calls.ws.store.repo_id
        return self._derived_id or (default_repo_id(self._root) if self._root else "repo")

    def calls(self) -> BoundedCalls:
        """The call runner, opening the workspace on first need: a ``NotIndexedError``
        ("no index for PATH: run `repoctx index PATH`") until the repository is indexed."""
        if self._calls is None:
            self._calls = BoundedCalls(self._open())
        return self._calls

    def try_open(self) -> None:
        """Open the workspace if it opens, to learn the store's id."""
        # fail-open: a repository that does not open (no index yet, a damaged store) keeps
        # its derived id, and each call to it answers the error then current
        with contextlib.suppress(RepoctxError):
            self.calls()

    def label(self) -> str:
        """``id (folder)``, as errors and the instructions list a repository."""
        return f"{self.id} ({self.root})" if self.root is not None else self.id

    def close(self) -> None:
        """Close the workspace, if a call opened it."""
        if self._calls is not None:
            self._calls.ws.close()


class Repos:
    """The repositories of one server, and the routing of each call to one of them."""

    def __init__(self, repos: Sequence[Repo]) -> None:
        if not repos:
            raise ValueError("a server serves at least one repository")
        self.repos = tuple(repos)
        if self.many:  # the instructions name every id, so the stores open now
            self._open_all()

    @classmethod
    def single(cls, workspace: Workspace | Callable[[], Workspace]) -> Repos:
        """One repository given by its workspace, or what opens it at the first call."""
        opener = workspace if callable(workspace) else lambda: workspace
        return cls([Repo(None, opener)])

    @property
    def many(self) -> bool:
        """True when this server serves more than one repository."""
        return len(self.repos) > 1

    def route(self, arguments: dict[str, Any]) -> tuple[Repo, dict[str, Any]]:
        """The repository a call with ``arguments`` is for, and the arguments without
        ``repo``; a ``ToolError`` naming the choices when that cannot be told."""
        args = dict(arguments or {})
        if REPO in args:
            return self.named(args.pop(REPO)), args
        if not self.many:
            return self.repos[0], args
        pointed = list(dict.fromkeys(pointed_at(self.repos, args)))
        if len(pointed) == 1:
            return pointed[0], args
        if pointed:
            raise ToolError(f"the arguments fall in several repositories ({self._ids(pointed)}"
                            "): one repository per call; pass repo to choose one")
        raise ToolError(f"this server serves several repositories; pass repo, one of "
                        f"{self._listed()}")

    def named(self, given: Any) -> Repo:
        """The repository ``given`` names (an id, its folder or a path inside it)."""
        if not isinstance(given, str) or not 0 < len(given) <= REPO_MAX_CHARS:
            raise ToolError(f"repo: must be a repository id or folder, one of {self._listed()}")
        self._open_all()
        by_id = [r for r in self.repos if r.id == given]
        if len(by_id) > 1:
            raise ToolError(f"repo: {given!r} is the id of several served folders; pass the "
                            f"folder instead: {self._listed()}")
        found = by_id or _containing(self.repos, given)
        if not found:
            raise ToolError(f"repo: unknown repository {given!r}; this server serves "
                            f"{self._listed()}")
        return found[0]

    def published(self, input_schema: dict[str, Any]) -> dict[str, Any]:
        """``input_schema`` (already as published) as this server lists it: unchanged
        with one repository; with several, ``repo`` first in place of ``repoId``."""
        if not self.many:
            return input_schema
        props = {k: v for k, v in input_schema.get("properties", {}).items() if k != "repoId"}
        return {**input_schema, "properties": {REPO: {"type": "string"}, **props}}

    def instructions(self) -> str:
        """What the server's instructions add about its repositories ("" for one)."""
        if not self.many:
            return ""
        return (f" This server serves several repositories: {self._listed()}. Every tool "
                "takes repo (an id or folder), by default the repository the call's paths "
                "fall in; one repository per call, no search spans several.")

    def close(self) -> None:
        """Close every workspace a call opened."""
        for repo in self.repos:
            repo.close()

    def _open_all(self) -> None:
        # the store's id (and a bare workspace's folder) is known once open
        for repo in self.repos:
            repo.try_open()

    def _listed(self) -> str:
        return ", ".join(r.label() for r in self.repos)

    @staticmethod
    def _ids(repos: Iterable[Repo]) -> str:
        return ", ".join(r.id for r in repos)


def pointed_at(repos: Sequence[Repo], args: dict[str, Any]) -> list[Repo]:
    """The repositories a call's own arguments point at, one entry per pointing value:
    a path argument (``path``, ``paths``, ``pathPrefix``) that is absolute and inside a
    repository's folder, or relative and existing in exactly one repository; a store key
    (``key``) or ``repoId`` naming a repository's id; a ContextPull section ``id``
    (``path#ordinal``) whose document exists in exactly one repository."""
    out: list[Repo] = []
    for name in _PATHS:
        value = args.get(name)
        for path in (value if isinstance(value, list) else [value]):
            if isinstance(path, str):
                out += _holding(repos, path)
    ids = [args.get("repoId")]
    if isinstance(args.get("key"), str) and (match := _KEY.match(args["key"])):
        ids.append(match.group(1))
    out += [r for r in repos if r.id in ids and _unique_id(repos, r.id)]
    section = args.get("id")
    if isinstance(section, str) and "#" in section:
        out += _holding(repos, section.rpartition("#")[0])
    return out


def _holding(repos: Sequence[Repo], path: str) -> list[Repo]:
    """The one repository ``path`` falls in: the folder holding it when it is absolute,
    else the one repository where it exists; [] when that cannot be told."""
    if _is_absolute(path):
        return _containing(repos, path)[:1]
    if _GLOB.search(path) or not path.strip("./"):
        return []  # a glob or the root itself exists in every repository or none
    having = [r for r in repos if r.root is not None and os.path.lexists(r.root / path)]
    return having if len(having) == 1 else []


def _containing(repos: Sequence[Repo], path: str) -> list[Repo]:
    """The repositories whose folder is ``path`` or holds it, the innermost first."""
    if not _is_absolute(path):
        return []
    target = Path(os.path.normpath(path.replace("\\", "/"))).resolve()
    inside = [r for r in repos if r.root is not None
              and (target == r.root or r.root in target.parents)]
    return sorted(inside, key=lambda r: -len(r.root.parts) if r.root else 0)


def _is_absolute(path: str) -> bool:
    return path.startswith(("/", "\\")) or bool(PureWindowsPath(path).drive)


def _unique_id(repos: Sequence[Repo], repo_id: str) -> bool:
    return sum(r.id == repo_id for r in repos) == 1


def open_repos(paths: Sequence[Path], store_dir: Path | None = None,
               repo_id: str | None = None) -> Repos:
    """The repositories at ``paths``, each opened as ``repoctx serve`` opens one
    (``store_dir`` and ``repo_id`` only go with a single repository)."""
    from repoctx.retrieval import open_workspace

    if len(paths) > 1 and (store_dir is not None or repo_id is not None):
        raise ValueError("store_dir and repo_id name one repository's store")

    def opener(root: Path) -> Callable[[], Workspace]:
        return lambda: open_workspace(root, store_dir=store_dir, repo_id=repo_id)

    return Repos([Repo(Path(p), opener(Path(p)), repo_id) for p in paths])
