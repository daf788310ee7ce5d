"""memory/memory_record — the memory entry record at ``repo/{repoId}/mem/{topic}/{id}``.

The one module that knows the record's fields (seed 003):

- ``kind`` (decision | note | memory, written on create), ``title``, ``author``,
  ``provenance``, ``createdAt`` (epoch ms): last-writer-wins registers, each written
  at its own tick, so a later edit of one field wins and other fields are kept;
- ``body``: a collaborative text (``crdt.text_body``), rewritten by diff;
- ``tags``: an add-wins set;
- ``links``: an add-wins set of ``"{relation} {target key}"`` elements (a relation
  has no space; a target key may), i.e. relation -> add-wins set of target keys;
- ``digests``: the link-digest map, an observed-remove map target key -> the digest
  captured when a file or symbol link was added (a memory target captures nothing);
  a target's digest is dropped once no relation links to it any more;
- ``revisions``: the revision log, an add-wins set that remember and update only
  ever add ``"{tick:016x} {replica} {operation}"`` to; forgetting removes what it
  observed so the forgotten record is a tombstone;
- the record's ``$expires`` (``crdt.record.EXPIRES``), which only moves later.

An entry exists while its record is visible and its ``kind`` is set: forgetting
writes every register ``None`` and empties every set, which hides the entry even if
a concurrent update elsewhere keeps a field alive. Pure; no I/O.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from repoctx.crdt import add_wins_set, lww_register, max_register, or_map, record, text_body
from repoctx.crdt.record import Record
from repoctx.errors import InvalidKeyError, ToolError
from repoctx.trees import key_name, make_key, parse_key

from . import body as body_text

FAMILY = "mem"
KINDS = ("decision", "note", "memory")
DEFAULT_KIND = "note"
KIND, TITLE, AUTHOR, PROVENANCE, CREATED_AT = "kind", "title", "author", "provenance", "createdAt"
BODY, TAGS, LINKS, DIGESTS, REVISIONS = "body", "tags", "links", "digests", "revisions"
REGISTERS = (KIND, TITLE, AUTHOR, PROVENANCE, CREATED_AT)
UPDATABLE = (TITLE, BODY, AUTHOR, PROVENANCE)
"""Fields ``repocontext_update`` may write (kind and createdAt are set on create)."""
MAX_NAME = 128
MAX_TAG = 64


@dataclass(frozen=True, slots=True)
class Entry:
    """What one memory record says, as plain values."""

    key: str
    topic: str
    id: str
    kind: str | None
    title: str | None = None
    body: str = ""
    author: str | None = None
    provenance: str | None = None
    created_ms: int | None = None
    tags: frozenset[str] = frozenset()
    links: dict[str, frozenset[str]] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)
    revisions: int = 0
    expires_ms: int | None = None
    tick: int = 0

    @property
    def exists(self) -> bool:
        """True for a remembered, not forgotten, entry."""
        return self.kind is not None

    def targets(self) -> frozenset[str]:
        """Every key any relation links to."""
        return frozenset().union(*self.links.values()) if self.links else frozenset()


@dataclass(frozen=True, slots=True)
class Change:
    """What one remember or update writes; empty parts write nothing."""

    operation: str
    registers: Mapping[str, Any] = field(default_factory=dict)
    body: str | None = None
    add_tags: frozenset[str] = frozenset()
    remove_tags: frozenset[str] = frozenset()
    add_links: frozenset[tuple[str, str]] = frozenset()
    remove_links: frozenset[tuple[str, str]] = frozenset()
    digests: Mapping[str, str] = field(default_factory=dict)
    expires_ms: int | None = None


def check_name(label: str, name: Any) -> str:
    """A topic or id: 1-128 characters, no ``/``, no control characters."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_NAME:
        raise ToolError(f"{label}: must be a string of 1 to {MAX_NAME} characters")
    if "/" in name or _has_control(name):
        raise ToolError(f"{label}: {name!r} may not contain '/' or control characters")
    return name


def check_tag(tag: Any) -> str:
    """A tag: 1-64 characters without control characters."""
    if not isinstance(tag, str) or not 1 <= len(tag) <= MAX_TAG or _has_control(tag):
        raise ToolError(f"tags: {tag!r} must be 1 to {MAX_TAG} characters, no control characters")
    return tag


def _has_control(text: str) -> bool:
    return any(unicodedata.category(c) in ("Cc", "Cs") for c in text)


def memory_key(repo_id: str, topic: str, entry_id: str) -> str:
    """``repo/{repoId}/mem/{topic}/{id}`` after checking both names."""
    rest = f"{check_name('topic', topic)}/{check_name('id', entry_id)}"
    return make_key(repo_id, FAMILY, rest)


def parse_memory_key(repo_id: str, key: Any) -> tuple[str, str]:
    """``(topic, id)`` of a memory key of ``repo_id``; anything else is a ``ToolError``."""
    if not isinstance(key, str):
        raise ToolError("key: must be a string")
    try:
        parsed = parse_key(key)
    except InvalidKeyError as exc:
        raise ToolError(f"key: {exc}") from None
    if parsed.family != FAMILY or parsed.repo_id != repo_id or parsed.rest.count("/") != 1:
        raise ToolError(f"key: {key!r} is not a memory key repo/{repo_id}/mem/{{topic}}/{{id}}")
    topic, entry_id = parsed.rest.split("/")
    return check_name("topic", topic), check_name("id", entry_id)


def link_element(relation: str, target: str) -> str:
    """The links-set element of one edge."""
    return f"{relation} {target}"


def split_link(element: str) -> tuple[str, str]:
    """``(relation, target)`` of a links-set element."""
    relation, _, target = element.partition(" ")
    return relation, target


def entry(key: str, rec: Record | None) -> Entry:
    """The plain view of the record at ``key`` (``kind`` None when absent or forgotten)."""
    topic, _, entry_id = key_name(key).partition("/")
    regs = {name: record.field_state(rec, name, lww_register).value for name in REGISTERS}
    links: dict[str, set[str]] = {}
    for element in add_wins_set.value(record.field_state(rec, LINKS, add_wins_set)):
        relation, target = split_link(element)
        links.setdefault(relation, set()).add(target)
    return Entry(
        key, topic, entry_id, regs[KIND], regs[TITLE],
        text_body.value(record.field_state(rec, BODY, text_body)),
        regs[AUTHOR], regs[PROVENANCE], regs[CREATED_AT],
        add_wins_set.value(record.field_state(rec, TAGS, add_wins_set)),
        {rel: frozenset(ts) for rel, ts in sorted(links.items())},
        or_map.value(record.field_state(rec, DIGESTS, or_map)),
        len(record.field_state(rec, REVISIONS, add_wins_set).entries),
        None if rec is None else record.expires_ms(rec),
        0 if rec is None else record.tick(rec),
    )


def change_delta(current: Record | None, change: Change, tick: int, replica: str,
                 ) -> Record | None:
    """Delta writing ``change`` over ``current`` (None when it changes nothing)."""
    states: dict[str, Any] = {}
    for name, new in change.registers.items():
        if record.field_state(current, name, lww_register).value != new:
            states[name] = lww_register.set_value(lww_register.EMPTY, new, tick, replica)
    if change.body is not None:
        delta = body_text.rewrite(record.field_state(current, BODY, text_body), change.body,
                                  replica)
        if delta != text_body.EMPTY:
            states[BODY] = delta
    _set_change(states, current, TAGS, change.add_tags, change.remove_tags, replica)
    _link_change(states, current, change, tick, replica)
    if change.expires_ms is not None and change.expires_ms > (_expiry(current) or -1):
        states[record.EXPIRES] = max_register.raise_to(max_register.EMPTY, change.expires_ms)
    if not states:
        return None
    revision = f"{tick:016x} {replica} {change.operation}"
    states[REVISIONS] = add_wins_set.add(_set(current, REVISIONS), revision, replica)
    return record.write(states, tick)


def expiry_delta(current: Record | None, expires_ms: int, tick: int) -> Record | None:
    """Delta raising the record's expiry to ``expires_ms`` (None if already later)."""
    if (_expiry(current) or -1) >= expires_ms:
        return None
    return record.write({record.EXPIRES: max_register.raise_to(max_register.EMPTY, expires_ms)},
                        tick)


def forget_delta(current: Record | None, tick: int, replica: str) -> Record | None:
    """Delta emptying every field (the record becomes a tombstone); None if nothing to do."""
    if current is None:
        return None
    states: dict[str, Any] = {}
    for name in REGISTERS:
        if record.field_state(current, name, lww_register).value is not None:
            states[name] = lww_register.set_value(lww_register.EMPTY, None, tick, replica)
    delta = body_text.rewrite(record.field_state(current, BODY, text_body), "", replica)
    if delta != text_body.EMPTY:
        states[BODY] = delta
    for name in (TAGS, LINKS, REVISIONS):
        present = _set(current, name).entries
        if present:
            states[name] = add_wins_set.remove_all(_set(current, name), present)
    digests = record.field_state(current, DIGESTS, or_map)
    if digests.entries:
        states[DIGESTS] = _remove_keys(digests, digests.entries)
    return record.write(states, tick) if states else None


def _set(current: Record | None, name: str) -> add_wins_set.AddWinsSet:
    return record.field_state(current, name, add_wins_set)


def _expiry(current: Record | None) -> int | None:
    return None if current is None else record.expires_ms(current)


def _set_change(states: dict[str, Any], current: Record | None, name: str,
                adds: Iterable[str], removes: Iterable[str], replica: str) -> None:
    """Put into ``states`` the delta adding ``adds`` and removing present ``removes``.

    An add of a present element still adds (a fresh dot), so it survives a remove made
    concurrently elsewhere, as an add-wins set promises.
    """
    state = _set(current, name)
    present = add_wins_set.value(state)
    new = set(adds)
    gone = {e for e in removes if e in present} - new
    delta = add_wins_set.EMPTY
    if gone:
        delta = add_wins_set.remove_all(state, gone)
    if new:
        delta = add_wins_set.merge(delta, add_wins_set.add_all(state, new, replica))
    if delta != add_wins_set.EMPTY:
        states[name] = delta


def _link_change(states: dict[str, Any], current: Record | None, change: Change, tick: int,
                 replica: str) -> None:
    """Links and the digests that go with them (captured on add, dropped when unlinked)."""
    adds = {link_element(r, t) for r, t in change.add_links}
    removes = {link_element(r, t) for r, t in change.remove_links}
    _set_change(states, current, LINKS, adds, removes, replica)
    digests = record.field_state(current, DIGESTS, or_map)
    known = or_map.value(digests)
    delta, seen = or_map.EMPTY, digests
    for target, digest in sorted(change.digests.items()):
        if known.get(target) != digest:
            put = or_map.put(seen, target, digest, tick, replica)
            seen = or_map.merge(seen, put)  # the next put must take the next dot
            delta = or_map.merge(delta, put)
    kept = add_wins_set.value(_set(current, LINKS)) - removes | adds
    linked = {split_link(e)[1] for e in kept}
    unlinked = [t for t in digests.entries if t not in linked]
    if unlinked:
        delta = or_map.merge(delta, _remove_keys(digests, unlinked))
    if delta != or_map.EMPTY:
        states[DIGESTS] = delta


def _remove_keys(state: or_map.OrMap, keys: Iterable[str]) -> or_map.OrMap:
    delta = or_map.EMPTY
    for key in sorted(keys):
        delta = or_map.merge(delta, or_map.remove(state, key))
    return delta
