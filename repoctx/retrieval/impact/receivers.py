"""retrieval/impact/receivers — whether a JavaScript/TypeScript member reference can run a
given method, from the receivers its file spells (``Symbol.targets``).

A reference to ``m`` from a symbol whose file spells every use of ``m`` (``this.m()``,
``C.m()``, ``new C().m()``, ``(x: C) => x.m()``) can run ``K.m`` only when a spelling
is ``K.m`` itself, names a class above ``K`` (``this._parse()`` in a base class runs
the subclass's override), or names a member the store does not declare (inherited,
set at run time); an unspelled use may run it. When ``m`` is a method name that
``AMBIGUOUS`` or more classes declare (``_parse``, ``constructor``), a spelling of
another class's ``m`` (a base class's ``this.m()`` included: every subclass's ``m``
answers it) says nothing about ``K``, and ``K``'s own entry points (the class and
its static members, ``K.create``) are followed beside the method. Other languages keep the
simple-name rules of ``covering``.

A receiver chain (``extract.receiver_chain``: ``?.ZodCatch.create``, ``?.string().min``)
is resolved first, near the definition asked about (``resolve_chain``): a class by its
name, a call's result by its callee's annotated return type (``create(): ZodString``),
through a binding to it (``const stringType = ZodString.create``) and the names the
module exports it under; a chain the store cannot resolve counts as unspelled.
"""

from __future__ import annotations

import re

from repoctx.extract import language_of, qualname_parts, simple_name
from repoctx.reconcile.nodes import symbol_record
from repoctx.retrieval.symbols import declarations, named
from repoctx.retrieval.workspace import Workspace

AMBIGUOUS = 3
"""Classes declaring a method name from which a base class's ``this.m()`` stops meaning
any one of them (zod's 40 ``_parse`` methods). Against zod's V8 truth (20 sampled
edits): 2 and 3 alike (80.7% of covering test files, 3.4 suggested per found), 6 +0.5
points for 3.5 per found."""
_LIMIT = 16  # definitions of one name examined
_ANCESTRY = 8  # base classes climbed
_EXTENDS = re.compile(r"\bextends\s+([\w$]+)")
_RETURNS = re.compile(r"\)\s*:\s*([A-Za-z_$][\w$]*)\s*(?:<.*>)?\s*$")
_UNKNOWN = "?."
_TYPE_ONLY = re.compile(r"(?:export\s+)?(?:declare\s+)?(?:type|interface)\s")
_LANGUAGES = frozenset({"javascript", "typescript"})


def receiver_aware(path: str | None) -> bool:
    """True for a file of a language whose receivers these rules read."""
    return path is not None and language_of(path) in _LANGUAGES


def type_only(path: str, signature: str) -> bool:
    """True for a TypeScript declaration that runs nothing (``type T = …``,
    ``interface I``): naming a definition in it calls nothing."""
    return receiver_aware(path) and _TYPE_ONLY.match(signature) is not None


def home_module(fq: str, path: str) -> str:
    """The module part of ``fq``, declared in ``path`` (``src/v3/types`` of
    ``src/v3/types.ZodString.min``)."""
    return fq[: -len(".".join(qualname_parts(path, fq))) - 1]


def owner_class(ws: Workspace, fq: str, path: str) -> str | None:
    """The class ``fq`` is a member of (its fully-qualified name), else None."""
    parts = qualname_parts(path, fq)
    if not parts or len(parts) < 2:
        return None
    owner = fq[: -len(parts[-1]) - 1]
    first = symbol_record.primary(declarations(ws, owner))
    return owner if first is not None and first[1].kind == "class" else None


def ambiguous(ws: Workspace, name: str) -> bool:
    """True when ``AMBIGUOUS`` or more classes declare a member called ``name``."""
    owners = {fq[: -len(name) - 1] for fq, _ in named(ws, name, _LIMIT)
              if fq.endswith("." + name)}
    return len(owners) >= AMBIGUOUS


def ancestors(ws: Workspace, cls: str) -> set[str]:
    """The simple names of ``cls`` and the classes it extends, as far as the store says."""
    out, current = {simple_name(cls)}, cls
    for _ in range(_ANCESTRY):
        first = symbol_record.primary(declarations(ws, current))
        match = _EXTENDS.search(first[1].signature) if first is not None else None
        if match is None or match.group(1) in out:
            return out
        out.add(match.group(1))
        near = [fq for fq, _ in named(ws, match.group(1), _LIMIT)]
        same_file = [fq for fq in near if fq.rpartition(".")[0] == current.rpartition(".")[0]]
        if not (same_file or near):
            return out
        current = (same_file or near)[0]
    return out


def may_run(ws: Workspace, spellings: set[str], fq: str, above: set[str],
            is_ambiguous: bool) -> bool:
    """True when a use spelled ``spellings`` (empty: unspelled) may run ``fq``, a member
    of the class whose ``ancestors`` are ``above`` (module docstring)."""
    if fq in spellings or not spellings:
        return True
    if is_ambiguous:
        return False
    return any(simple_name(s.rpartition(".")[0]) in above or not declarations(ws, s)
               for s in spellings)


def entry_points(ws: Workspace, cls: str, path: str) -> list[tuple[str, str]]:
    """``(fq, path)`` of the class and its static members: what runs an instance's
    methods when the method's own name says nothing."""
    out = [(cls, path)]
    for fq, where in named_members(ws, cls, path):
        first = symbol_record.primary(declarations(ws, fq))
        if first is not None and first[1].signature.startswith("static "):
            out.append((fq, where))
    return out


def named_members(ws: Workspace, cls: str, path: str) -> list[tuple[str, str]]:
    """``(fq, path)`` of what ``path`` declares directly inside ``cls``."""
    node = ws.node(path)
    if node is None:
        return []
    prefix = cls + "."
    return [(fq, path) for fq in node.symbols
            if fq.startswith(prefix) and "." not in fq[len(prefix):]]


def resolve_chain(ws: Workspace, spelling: str, home: str,
                  exported: dict[str, str]) -> str | None:
    """The qualified member a receiver chain stands for, read near the module ``home``
    whose file exports its definitions under other names as ``exported`` (alias ->
    name); None when the store cannot say."""
    receiver, _, member = spelling.rpartition(".")
    if receiver.endswith("()"):
        cls = _returned(ws, receiver[:-2], home, exported)
    else:
        cls = _qualified(ws, receiver, home, exported)
    return None if cls is None else f"{cls}.{member}"


def _qualified(ws: Workspace, written: str, home: str, exported: dict[str, str]) -> str | None:
    """The definition ``written`` names: itself when qualified and declared, else (a
    package's name, or one a barrel passes on) the one of that name or exported under it
    in ``home``, else the only one the store declares."""
    if not written.startswith(_UNKNOWN) and declarations(ws, written):
        return written
    name = written.rpartition(".")[2]
    for near in dict.fromkeys((f"{home}.{name}", f"{home}.{exported.get(name, name)}")):
        if declarations(ws, near):
            return near
    found = {fq for fq, _ in named(ws, name, 2)}
    return found.pop() if len(found) == 1 else None


def _returned(ws: Workspace, callee: str, home: str, exported: dict[str, str],
              hops: int = 2) -> str | None:
    """The class a call of ``callee`` returns, as its declaration annotates it (a class
    called returns itself; a binding to a function returns what that function does)."""
    fq = _qualified(ws, callee, home, exported)
    first = symbol_record.primary(declarations(ws, fq)) if fq else None
    if first is None or fq is None:
        return None
    decl = first[1]
    if decl.kind == "class":
        return fq
    match = _RETURNS.search(decl.signature)
    module = home_module(fq, first[0])
    if match is not None:
        return _qualified(ws, _UNKNOWN + match.group(1), module, {})
    bound = [spelled for _, spelled in decl.targets]
    if decl.kind == "variable" and len(bound) == 1 and hops > 0:
        return _returned(ws, bound[0], module, {}, hops - 1)
    return None
