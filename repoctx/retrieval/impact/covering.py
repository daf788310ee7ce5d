"""retrieval/impact/covering — the test files that exercise a definition, from static evidence.

No coverage run: the evidence is what test files import and which names they refer to,
read from the store. A test file *reaches* a module when it is that module, imports it
(directly, through a package ``__init__`` that imports it, up to ``REEXPORT_DEPTH``
packages deep, through its package when the file names the module — ``import pkg``
then ``pkg.calc.price`` — or through a ``conftest.py`` in its directory or above), or,
for a language whose packages are directories (Go, Java, C#), sits in or imports the
module's directory. Evidence, strongest first:

- ``imports``: a test refers to the definition's simple name from a file reaching its
  module: distance 0;
- ``calls``: a test refers to a caller of the definition (a non-test symbol referring to
  its name from a file reaching its module), breadth-first up to ``MAX_DEPTH`` callers
  away, at most ``FAN_OUT`` callers followed per level: distance = callers on the way;
- ``name``: a test named after the definition (``TestFoo``, ``test_foo``, Go
  ``TestFoo``) or referring to its name where the import cannot be checked (no declaring
  file known), from a file that does not reach it: distance 1;
- ``imports`` again, last: a test file reaching the module that refers only to other
  names the module declares: distance ``MAX_DEPTH + 1``, no names.

A test referring to a same-named definition of a module it does not reach is left
out. Test names are fully-qualified. Every lookup goes through a per-query cache and a
budget of ``LOOKUPS`` symbol reads, so a name every file uses (``get``) stays bounded.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from itertools import product
from typing import Any

from repoctx.extract import (
    export_aliases,
    is_test_path,
    language_of,
    qualname_parts,
    receiver_chain,
    simple_name,
)
from repoctx.reconcile.nodes import content_record, symbol_record, xref_record
from repoctx.reconcile.xref import marked_test_subjects, snake, test_subjects
from repoctx.retrieval.impact import receivers
from repoctx.retrieval.impact.imports import imports
from repoctx.retrieval.impact.store_files import reexports
from repoctx.retrieval.symbols import declarations, named, reverse_members
from repoctx.retrieval.workspace import Workspace

TESTS_K = 50
"""Test files an answer without a ``k`` of its own lists at most."""
MAX_DEPTH = 4
"""Most callers between a definition and a test that reaches it through them. Against
coverage.py truth (the test files running each function of click, boltons, parse and
toolz), callers alone found 16% of click's at depth 1 and 39% at depth 3 (boltons 51%,
56%); with the module's other names as well, depth 2, 3, 4 found 72%, 76%, 80% (boltons
96%, 97%, 97%), each level a few milliseconds more per query."""
FAN_OUT = 32
"""Most callers followed from one level of the caller search to the next, those the
file spells first (4: 2-4 points less recall on click; 16 -> 32: click, boltons, parse
and toolz unchanged, zod's V8 truth 80.1% -> 87.8% of covering test files at 3.1 -> 3.2
suggested per found; 64: 92% at 4.2)."""
CANDIDATES = 200
"""Most symbols of one name's reverse index examined (those likeliest to be near the
definition first)."""
LOOKUPS = 4000
"""Most symbol reads one query makes, over all its targets and levels."""
SIBLINGS = 40
"""Most other names of a definition's module looked up for the last, weakest evidence:
the evidence that pays most (click 39% -> 69% at 12 names -> 76% at 40; boltons 56% ->
95% -> 97%), at about two suggested test files per true one."""
NAMES = 8
"""Most test names listed per test file."""
DECLARERS = 8
"""Most definitions a bare simple name stands for (each then checked by its module)."""
REEXPORT_DEPTH = 2
"""Most re-exporting files (a package ``__init__``, a JavaScript barrel) an import passes
through to reach a module."""
_DIRECTORY_PACKAGES = frozenset({"go", "java", "csharp"})
_STRENGTH = {"imports": 0, "calls": 1, "name": 2}
_INITS = ("__init__.py", "__init__.pyi")
_CONFTEST = "conftest.py"
_TEST_EVIDENCE = (xref_record.TESTS, xref_record.DEPENDENTS)
"""Tests, then the other symbols of test files (helpers, module-level schemas, classes
nested in a test), which the store lists as dependents."""
_NAME_DISTANCE = 1
_SIBLING_DISTANCE = MAX_DEPTH + 1


def covering_tests(ws: Workspace, targets: list[tuple[str, str | None]],
                   k: int) -> list[dict[str, Any]]:
    """``[{path, names, reason, distance}]``: at most ``k`` test files covering the
    ``(fully-qualified name, declaring path)`` targets, nearest and best-evidenced first."""
    query = _Query(ws)
    found: dict[str, _Entry] = {}
    targets = _declared(ws, targets)
    frontier = list(dict.fromkeys(t for target in targets for t in query.expand(*target)))
    seen = {fq for fq, _ in frontier}
    for distance in range(MAX_DEPTH + 1):
        for fq, path in frontier:
            _tests_of(query, fq, path, distance, found)
        if distance == MAX_DEPTH:
            break
        frontier = _next_level(query, frontier, seen)
    by_path: dict[str, set[str]] = {}
    for fq, path in targets:
        if path is not None:
            by_path.setdefault(path, set()).add(simple_name(fq))
    for path, own in by_path.items():
        _sibling_tests(query, path, own, found)
    ranked = sorted(found.items(), key=lambda item: (
        item[1].distance, _STRENGTH[item[1].reason], -len(item[1].names), item[0]))
    return [{"path": path, "names": sorted(entry.names)[:NAMES] if entry.listed else [],
             "reason": entry.reason, "distance": entry.distance}
            for path, entry in ranked[:max(0, k)]]


def callers(ws: Workspace, fq: str, path: str | None = None,
            query: _Query | None = None) -> list[tuple[str, str]]:
    """``(caller fq, path)`` of the non-test symbols that refer to ``fq``'s simple name
    from a file reaching ``fq``'s module (``path``, else where the store declares ``fq``;
    none when neither is known, as an unchecked name would match every namesake)."""
    query = query or _Query(ws)
    if path is None:
        located = query.locate(fq)
        if located is None:
            return []
        path = located.path
    out = []
    for spelled in query.names(fq, path):
        for member in query.candidates(spelled, xref_record.DEPENDENTS, path):
            found = query.locate(member)
            if (found is not None and not found.in_test_file and not found.type_only
                    and member != fq
                    and query.runs(found, fq, path) and query.reaches(found.path, path)
                    and not query.delegates(member, fq, path)):
                out.append((member, found.path))
    return out


@dataclass
class _Entry:
    distance: int
    reason: str
    names: set[str] = field(default_factory=set)
    """The tests that give the evidence (ranked by their count; not listed for the
    weakest evidence, whose tests exercise other names)."""
    listed: bool = True


@dataclass(frozen=True, slots=True)
class _Located:
    path: str
    in_test_file: bool
    """A test, or a helper of a test file (a JavaScript suite's module-level ``const
    schema = z.string().min(5)``): what it refers to is what the file's tests run."""
    targets: tuple[tuple[str, str], ...] = ()
    type_only: bool = False
    """A declaration that runs nothing (a TypeScript ``type`` or ``interface``)."""


class _Query:
    """One query's reads of the store, each made once, within the ``LOOKUPS`` budget."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.lookups = 0
        self._located: dict[str, _Located | None] = {}
        # what the stored files import and reach: kept for every later query (and on disk
        # for the next process) until the content tree moves (a warm server's next
        # ``changed`` asks the same ~500 files)
        self._imports: dict[str, frozenset[str]] = ws.derived(
            "covering-imports", content_record.CONTENT_TREE, dict, dict[str, frozenset[str]])
        self._reach: dict[tuple[str, str], bool] = ws.derived(
            "covering-reach", content_record.CONTENT_TREE, dict, dict[tuple[str, str], bool])
        self._bodies: dict[str, str] = {}
        self._passes_on: dict[str, bool] = ws.derived(
            "covering-passes-on", content_record.CONTENT_TREE, dict, dict[str, bool])
        self._aliases: dict[str, dict[str, tuple[str, ...]]] = {}
        self._owners: dict[str, str | None] = {}
        self._ambiguity: dict[str, bool] = {}
        self._above: dict[str, set[str]] = {}
        self._chains: dict[tuple[str, str], str | None] = {}

    def locate(self, fq: str) -> _Located | None:
        """Where ``fq`` is declared and whether it is a test (None once over budget). A
        ``conftest.py`` holds no test to run: its test-named fixtures are callers."""
        if fq not in self._located:
            if self.lookups >= LOOKUPS:
                return None
            self.lookups += 1
            first = symbol_record.primary(declarations(self.ws, fq))
            self._located[fq] = None if first is None else _Located(
                first[0], posixpath.basename(first[0]) != _CONFTEST
                and (first[1].is_test or is_test_path(first[0])), first[1].targets,
                receivers.type_only(first[0], first[1].signature))
        return self._located[fq]

    def runs(self, member: _Located, fq: str, path: str | None) -> bool:
        """True when ``member``'s use of ``fq``'s name may run it, as far as the
        receivers its file spells say (``receivers``; always, in other languages)."""
        cls = self._owner(fq, path)
        if cls is None:
            return True
        name = simple_name(fq)
        spellings = {self._resolved(spelled, fq, path)
                     for used, spelled in member.targets if used == name}
        if None in spellings:  # a chain the store cannot resolve: as if unspelled
            return True
        return receivers.may_run(self.ws, spellings, fq, self._ancestors(cls),
                                 self._ambiguous(name))

    def delegates(self, member: str, fq: str, path: str | None) -> bool:
        """True when ``member`` is another class's override of ``fq``'s method name, many
        classes declaring it, whose use of the name its file does not spell as ``fq``
        (``ZodOptional._parse`` calling its inner schema's ``_parse``): what reaches it
        builds the inner object too, so the caller search does not climb through it."""
        name = simple_name(fq)
        return (simple_name(member) == name and self._owner(fq, path) is not None
                and self._ambiguous(name) and not self.spells(member, fq, path))

    def spells(self, member: str, fq: str, path: str | None) -> bool:
        """True when ``member``'s file spells its use of ``fq``'s name as ``fq`` itself."""
        found = self.locate(member)
        name = simple_name(fq)
        return found is not None and any(
            used == name and self._resolved(spelled, fq, path) == fq
            for used, spelled in found.targets)

    def _resolved(self, spelled: str, fq: str, path: str | None) -> str | None:
        """``spelled``, a receiver chain resolved near ``fq``'s module (``receivers``)."""
        if not receiver_chain(spelled) or path is None:
            return spelled
        module = receivers.home_module(fq, path)
        key = (spelled, module)
        if key not in self._chains:
            exported = {alias: name for name, aliases in self._exports(path).items()
                        for alias in aliases}
            self._chains[key] = receivers.resolve_chain(self.ws, spelled, module, exported)
        return self._chains[key]

    def expand(self, fq: str, path: str | None) -> list[tuple[str, str | None]]:
        """``fq``, and when it is a method whose name many classes declare, its class's
        entry points (``receivers.entry_points``)."""
        cls = self._owner(fq, path)
        if cls is None or path is None or not self._ambiguous(simple_name(fq)):
            return [(fq, path)]
        return [(fq, path), *receivers.entry_points(self.ws, cls, path)]

    def _owner(self, fq: str, path: str | None) -> str | None:
        if not receivers.receiver_aware(path) or path is None:
            return None
        if fq not in self._owners:
            self._owners[fq] = receivers.owner_class(self.ws, fq, path)
        return self._owners[fq]

    def _ambiguous(self, name: str) -> bool:
        if name not in self._ambiguity:
            self._ambiguity[name] = receivers.ambiguous(self.ws, name)
        return self._ambiguity[name]

    def _ancestors(self, cls: str) -> set[str]:
        if cls not in self._above:
            self._above[cls] = receivers.ancestors(self.ws, cls)
        return self._above[cls]

    def names(self, fq: str, path: str | None) -> list[str]:
        """The simple names ``fq`` is referred to by: its own, then those its file
        exports it under when it is a top-level definition (``export { stringType as
        string }``)."""
        name = simple_name(fq)  # the languages whose receivers are read rename on export
        if not receivers.receiver_aware(path) or qualname_parts(path, fq) != (name,):
            return [name]
        return [name, *self._exports(path).get(name, ())]

    def _exports(self, path: str) -> dict[str, tuple[str, ...]]:
        """Top-level name -> the names ``path`` exports it under."""
        if path not in self._aliases:
            self._aliases[path] = export_aliases(path, self._whole(path))
        return self._aliases[path]

    def candidates(self, name: str, relation: str, near: str | None) -> list[str]:
        """At most ``CANDIDATES`` members of ``name``'s reverse index, those whose name
        holds the stem of the module ``near`` first (``tests.test_calc`` for ``calc.py``)."""
        members = reverse_members(self.ws, name, relation)
        if len(members) <= CANDIDATES or near is None:
            return members[:CANDIDATES]
        stem = _stem(near)
        return sorted(members, key=lambda fq: stem not in fq)[:CANDIDATES]

    def imported(self, path: str) -> frozenset[str]:
        """The indexed files ``path`` imports."""
        if path not in self._imports:
            self._imports[path] = frozenset(
                entry["path"] for entry in imports(self.ws, path) if entry["path"])
        return self._imports[path]

    def reaches(self, source: str, module: str) -> bool:
        """True when the file ``source`` reaches the file ``module`` (module docstring)."""
        key = (source, module)
        if key not in self._reach:
            self._reach[key] = self._imports_module(source, module) or any(
                self._imports_module(conftest, module) for conftest in self._conftests(source))
        return self._reach[key]

    def _imports_module(self, source: str, module: str) -> bool:
        if source == module:
            return True
        by_directory = _directory_package(source, module)
        if by_directory and posixpath.dirname(source) == posixpath.dirname(module):
            return True
        level = self.imported(source)
        inits = [p for p in level if posixpath.basename(p) in _INITS]
        if any(_child_of(module, init) for init in inits) and self._mentions(source, module):
            return True  # ``from pkg import calc`` / ``import pkg`` then ``pkg.calc.…``
        for _ in range(REEXPORT_DEPTH + 1):
            if module in level or (by_directory and any(
                    posixpath.dirname(p) == posixpath.dirname(module) for p in level)):
                return True
            level = frozenset(found for hub in level if self._reexports(hub)
                              for found in self.imported(hub))
        return False

    def _reexports(self, path: str) -> bool:
        """True for a file that passes other modules' names on: a package ``__init__``, or
        a file re-exporting (``export * from``, ``export {…} from``, Rust's ``pub use``),
        as a JavaScript package's entry and its barrels do."""
        if path not in self._passes_on:  # asked once per hub per import level (28k
            # times on Django): a dict lookup, not a stored-links lookup each time
            self._passes_on[path] = (posixpath.basename(path) in _INITS
                                     or reexports(self.ws, path))
        return self._passes_on[path]

    def _body(self, path: str) -> str:
        """The stored body of ``path`` ('' when none)."""
        if path not in self._bodies:
            self._bodies[path] = self.ws.body(path) or ""
        return self._bodies[path]

    def _whole(self, path: str) -> str:
        """The whole text of ``path`` from the working tree, else the stored body (which
        the content tree bounds: a 5,000-line module's renaming exports sit at its end)."""
        try:
            return (self.ws.root / path).read_text("utf-8", errors="replace")
        except OSError:
            return self._body(path)

    def _mentions(self, source: str, module: str) -> bool:
        """True when ``source``'s stored body names ``module``'s stem as a word."""
        stem = _stem(module)
        return re.search(rf"\b{re.escape(stem)}\b", self._body(source)) is not None

    def _conftests(self, source: str) -> list[str]:
        directory, out = posixpath.dirname(source), []
        while True:
            conftest = posixpath.join(directory, _CONFTEST) if directory else _CONFTEST
            if conftest != source and conftest in self.ws.indexed():
                out.append(conftest)
            if not directory:
                return out
            directory = posixpath.dirname(directory)


def _declared(ws: Workspace, targets: list[tuple[str, str | None]],
              ) -> list[tuple[str, str | None]]:
    """``targets`` with each bare simple name of no known file replaced by the
    definitions of that name (kept as it is when the store declares none)."""
    out: list[tuple[str, str | None]] = []
    for fq, path in targets:
        found = named(ws, fq, DECLARERS) if path is None and simple_name(fq) == fq else []
        out += found or [(fq, path)]
    return out


def _tests_of(query: _Query, fq: str, path: str | None, distance: int,
              found: dict[str, _Entry]) -> None:
    """Record the tests referring to ``fq`` (declared in ``path``) at ``distance``."""
    name = simple_name(fq)
    for spelled, relation in product(query.names(fq, path), _TEST_EVIDENCE):
        for member in query.candidates(spelled, relation, path):
            test = query.locate(member)
            if (test is None or not test.in_test_file or test.type_only
                    or not query.runs(test, fq, path)):
                continue
            if path is not None and query.reaches(test.path, path):
                _add(found, test.path, member, distance,
                     "imports" if distance == 0 else "calls")
            elif distance == 0 and (path is None or _named_after(member, name)):
                _add(found, test.path, member, _NAME_DISTANCE, "name")


def _next_level(query: _Query, frontier: list[tuple[str, str | None]],
                seen: set[str]) -> list[tuple[str, str | None]]:
    """The callers of ``frontier`` not seen yet, at most ``FAN_OUT``, surest and nearest
    first: those whose file spells the callee itself before those using its bare name
    (over the whole level), then by the frontier's order, a caller in the callee's own
    file first, then those in files whose name shares its stem."""
    level: list[tuple[bool, tuple[str, str | None]]] = []
    for fq, path in frontier:
        stem = "" if path is None else _stem(path)
        ranked = sorted(callers(query.ws, fq, path, query),
                        key=lambda item, p=path, s=stem: (item[1] != p, s not in item[1]))
        for caller, caller_path in ranked:
            unspelled = not query.spells(caller, fq, path)
            for item in query.expand(caller, caller_path):
                if item[0] not in seen:
                    seen.add(item[0])
                    level.append((unspelled, item))
    level.sort(key=lambda entry: entry[0])  # stable: the order above within each kind
    return [item for _, item in level[:FAN_OUT]]


def _sibling_tests(query: _Query, path: str, own: set[str],
                   found: dict[str, _Entry]) -> None:
    """Test files reaching ``path`` that refer only to names it declares besides ``own``
    (its top-level names first; not its types, which run nothing)."""
    node = query.ws.node(path)
    if node is None:
        return
    ordered = sorted(node.symbols, key=lambda fq: (fq.count("."), fq))
    names: list[str] = []
    for fq in ordered:
        located = query.locate(fq) if receivers.receiver_aware(path) else None
        name = simple_name(fq)
        if name not in own and name not in names and not (located and located.type_only):
            names.append(name)
        if len(names) == SIBLINGS:
            break
    for name in names:
        for member in query.candidates(name, xref_record.TESTS, path):
            test = query.locate(member)
            if test is None or not test.in_test_file or test.type_only:
                continue
            entry = found.get(test.path)
            if entry is None and query.reaches(test.path, path):
                found[test.path] = entry = _Entry(_SIBLING_DISTANCE, "imports", listed=False)
            if entry is not None and not entry.listed:
                entry.names.add(member)


def _add(found: dict[str, _Entry], path: str, test: str, distance: int, reason: str) -> None:
    entry = found.get(path)
    if entry is None or (distance, _STRENGTH[reason]) < (entry.distance,
                                                        _STRENGTH[entry.reason]):
        found[path] = entry = _Entry(distance, reason, entry.names if entry else set())
    if distance == entry.distance:
        entry.names.add(test)


def _named_after(test: str, name: str) -> bool:
    """True when the test's own name says it covers ``name`` (``TestFoo``, ``test_foo``)."""
    short = simple_name(test)
    subjects = test_subjects(short, "class") | test_subjects(short, "function")
    subjects |= marked_test_subjects(short)
    return bool({name, snake(name)} & (subjects | {snake(s) for s in subjects}))


def _directory_package(source: str, module: str) -> bool:
    """True when both files are of one language whose packages are directories."""
    language = language_of(source)
    return language in _DIRECTORY_PACKAGES and language == language_of(module)


def _child_of(module: str, init: str) -> bool:
    """True when ``module`` is a module directly inside the package of ``init``."""
    return (posixpath.basename(module) not in _INITS
            and posixpath.dirname(module) == posixpath.dirname(init))


def _stem(path: str) -> str:
    """The module name ``path`` is imported by: its file name without the suffix
    (``calc`` for ``pkg/calc.py``), a package's directory name for its ``__init__``."""
    if posixpath.basename(path) in _INITS:
        return posixpath.basename(posixpath.dirname(path))
    return posixpath.splitext(posixpath.basename(path))[0]

