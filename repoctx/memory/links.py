"""memory/links — typed links from a memory entry to files, symbols and other entries.

A link is ``(relation, target key)``. Targets are keys of the entry's own repository:
a file ``repo/{id}/file/{path}``, a symbol ``repo/{id}/symbol/{fqName}`` (the two
structural families, whose content digest is captured when the link is added) or
another memory entry ``repo/{id}/mem/{topic}/{id}`` (captures nothing, never stale).

Digests (seed 003 "link-digest map"): a file's is its node's ``digest`` (SHA-256 of
the bytes). A symbol's is the SHA-256 hex of the canonical JSON (compact separators,
UTF-8) of its declarations, one ``[path, kind, signature, doc, spanLines, refs,
isTest]`` row per declaring file in path order, where ``spanLines`` is ``endLine -
startLine`` and ``refs`` are sorted: a symbol drifts when its signature, docstring,
length, references or declaring files change, and not when an edit elsewhere in its
file merely moves it down. Reads go through a ``Getter`` that returns only visible
records. Pure functions of what the getter returns.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from typing import Any

from repoctx.crdt.record import Record
from repoctx.errors import InvalidKeyError, ToolError
from repoctx.reconcile.nodes import file_node, symbol_record
from repoctx.trees import key_name, make_key, parse_key

from .memory_record import FAMILY, parse_memory_key

Getter = Callable[[str], Record | None]
"""The visible record at a key, or None."""

STRUCTURAL = ("file", "symbol")
TARGET_FAMILIES = (*STRUCTURAL, FAMILY)
_RELATION = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
_KEY_FORMS = ("give a key: repo/{r}/file/PATH (a file), repo/{r}/symbol/pkg.mod.Name (a "
              "symbol) or repo/{r}/mem/TOPIC/ID (a memory entry); a file's path or a "
              "symbol's name alone also works")
MAX_LINKS = 200
"""Most link targets one call may add or remove."""


def check_relation(relation: Any) -> str:
    """A relation name: 1-64 letters, digits, ``_ . : -``."""
    if not isinstance(relation, str) or not _RELATION.fullmatch(relation):
        raise ToolError(f"links: relation {relation!r} must be 1-64 letters, digits, '_.:-'")
    return relation


def check_target(repo_id: str, target: Any, get: Getter | None = None) -> str:
    """A link target key of ``repo_id`` (file, symbol or memory); else ``ToolError``.

    With ``get``, a target that is not a key may name what the store indexes instead: a
    file path (``src/app.py``) or a symbol's fully-qualified name (``pkg.app.run``), the
    file first; it becomes that record's key.
    """
    if not isinstance(target, str):
        raise ToolError(f"links: a target is a key string ({_KEY_FORMS.format(r=repo_id)})")
    if get is not None and not target.startswith("repo/"):
        return _indexed_key(repo_id, target, get)
    try:
        parsed = parse_key(target)
    except InvalidKeyError:
        raise ToolError(f"links: {target!r} is not a key; {_KEY_FORMS.format(r=repo_id)}"
                        ) from None
    if parsed.repo_id != repo_id or parsed.family not in TARGET_FAMILIES:
        raise ToolError(f"links: {target!r} is not a file, symbol or memory key of "
                        f"repo/{repo_id}; {_KEY_FORMS.format(r=repo_id)}")
    if parsed.family == FAMILY:
        parse_memory_key(repo_id, target)
    return target


def _indexed_key(repo_id: str, name: str, get: Getter) -> str:
    """The key of the file or symbol the store indexes as ``name``; else ``ToolError``."""
    for structural in STRUCTURAL:
        try:
            key = make_key(repo_id, structural, name)
        except InvalidKeyError:
            break  # an empty name: no key of any family
        if get(key) is not None:
            return key
    raise ToolError(f"links: {name!r} is neither a key nor a path or symbol the index holds; "
                    f"give an indexed path, a fully-qualified symbol name, or "
                    f"{_KEY_FORMS.format(r=repo_id).removeprefix('give ')}")


def family(target: str) -> str:
    """The key family of a (checked) target."""
    return target.split("/", 3)[2]


def parse_links(repo_id: str, links: Any, label: str = "addLinks", get: Getter | None = None,
                ) -> frozenset[tuple[str, str]]:
    """``{relation: [targets]}`` from a tool argument, as ``(relation, target key)`` pairs
    (a target may be a path or symbol name when ``get`` is given: ``check_target``)."""
    if links is None:
        return frozenset()
    if not isinstance(links, dict):
        raise ToolError(f"{label}: must be an object mapping a relation to a list of keys")
    pairs: set[tuple[str, str]] = set()
    for relation, targets in links.items():
        check_relation(relation)
        if not isinstance(targets, list):
            raise ToolError(f"{label}: {relation!r} must map to a list of keys")
        pairs |= {(relation, check_target(repo_id, t, get)) for t in targets}
    if len(pairs) > MAX_LINKS:
        raise ToolError(f"{label}: at most {MAX_LINKS} links per call")
    return frozenset(pairs)


def target_digest(get: Getter, target: str) -> str | None:
    """The current digest of a structural target, or None when it has no live record."""
    rec = get(target)
    if rec is None:
        return None
    if family(target) == "file":
        return file_node.file_node(key_name(target), rec).digest
    if family(target) == "symbol":
        return symbol_digest(rec)
    return None


def symbol_digest(rec: Record | None) -> str | None:
    """The digest of a symbol record (see the module docstring); None when retired."""
    decls = symbol_record.declarations(rec)
    if not decls:
        return None
    rows = [[path, d.kind, d.signature, d.doc, d.end_line - d.start_line, sorted(d.refs),
             d.is_test] for path, d in sorted(decls.items())]
    text = json.dumps(rows, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def capture(get: Getter, pairs: frozenset[tuple[str, str]]) -> dict[str, str]:
    """Digests to record for the structural targets of ``pairs`` that have a live record."""
    out = {}
    for target in sorted({t for _, t in pairs if family(t) in STRUCTURAL}):
        digest = target_digest(get, target)
        if digest is not None:
            out[target] = digest
    return out
