"""retrieval/bundle/packing — fit a context bundle under its token budget, exactly.

Greedy in rank order: each target goes in at the richest level of its ladder that
still fits (``auto``: slices, outline, paths), or is skipped (``omitted``) so a cheaper
later target can still use the room. Units the caller already has (receipt known, or
whole-file possession) are listed under ``reused`` (path, kind, receipt) with no text.

How the budget holds for the bytes sent: every entry and reference is costed as the
exact token count of its own serialization plus a small slack for the joins, against a
skeleton costed with six-digit numbers; then the whole response is counted exactly
(``wire.seal``), and while it is over budget the last pick is dropped. The only
response that can exceed a budget is the irreducible empty one (no entries, no reused),
which a JSON answer cannot go below. A unit's body is encoded once (``Unit.counted``),
an entry's head once per level tried, and the sealed count encodes only the response's
shell: its entries swapped for their stand-ins (``wire.counted``). Reads only; no
session writes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from repoctx.retrieval.bundle.definition_slices import TaskTerms
from repoctx.retrieval.bundle.receipts import FILE
from repoctx.retrieval.bundle.units import Source, Unit, outline_unit, path_unit, slice_units
from repoctx.retrieval.bundle.wire import Counted, counted, seal, tokens_of

SLICES, OUTLINE, PATHS, AUTO = "slices", "outline", "paths", "auto"
DETAILS = (AUTO, PATHS, OUTLINE, SLICES)
LEAN = "lean"
"""A file's best definition alone, sent as ``slices`` when all its slices do not fit:
the definition likeliest to be edited before an outline or a bare path."""
LADDERS = {AUTO: (SLICES, LEAN, OUTLINE, PATHS), SLICES: (SLICES, LEAN), OUTLINE: (OUTLINE,),
           PATHS: (PATHS,)}
STALE_LADDER = (OUTLINE, PATHS)
"""What a stale file asked for in slices degrades to."""
STALE_NOTE = "changed on disk since indexing: no bodies sent, re-index to get them"
MAX_REASONS = 3
OUTLINE_FLOOR = 10
"""Fewest tokens one symbol adds to an outline (a lower bound, see ``_outline_cannot_fit``)."""
_SLACK = 2
MAX_CHARS_PER_TOKEN = 8
"""More characters per token than source text has (about 3.5 for code, 4.5 for prose):
new bodies longer than this many characters per token of room are not counted exactly,
they surely do not fit (a large plan spares tokenizing most of its tail)."""
_WIDE = 999_999  # a six-digit stand-in for the numbers a response carries


@dataclass
class Plan:
    """What a bundle is packed from: the targets' sources and what the caller holds."""

    sources: list[Source]
    detail: str
    known: frozenset[str] = frozenset()
    """Receipts the caller holds (``seen`` plus the session's)."""
    possessed: frozenset[str] = frozenset()
    """``path@contentHash`` whole-file versions the caller provably holds."""
    fields: dict[str, Any] = field(default_factory=dict)
    """Fixed response fields (``retrievalPath``)."""
    words: TaskTerms = field(default_factory=TaskTerms)
    """The task's weighted terms: which definitions of a file its slices carry."""
    _units: dict[tuple[str, str, int], list[Unit] | None] = field(default_factory=dict)

    def units(self, src: Source, level: str, budget: int) -> list[Unit] | None:
        """The units of ``src`` at ``level`` (None when the level is unavailable), cached."""
        cheap_key = budget if level in (SLICES, LEAN) else 0
        key = (src.path, level, cheap_key)
        if key not in self._units:
            if level in (SLICES, LEAN):
                self._units[key] = slice_units(src, budget, self.words, lean=level == LEAN)
            elif level == OUTLINE:
                unit = outline_unit(src)
                self._units[key] = None if unit is None else [unit]
            else:
                self._units[key] = [path_unit(src)]
        return self._units[key]


@dataclass
class Pick:
    """One target that went in: its entry (None when all it had was reused) and refs."""

    entry: dict[str, Any] | None
    delivered: list[Unit]
    reused: list[Unit]
    refs: list[dict[str, str]]
    counted: Counted = Counted({}, 0, 0)
    """How ``entry`` is counted (its stand-in in the response's shell, what it adds over
    that, its exact count); nothing without an entry."""


@dataclass
class Packed:
    """A packed bundle: the picks, what was left out, and the sealed response."""

    picks: list[Pick]
    omitted: int
    response: dict[str, Any]
    text: str

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The response's entries."""
        return self.response["entries"]


def response_of(plan: Plan, picks: list[Pick], omitted: int, budget: int,
                extra: dict[str, Any] | None = None, *, shell: bool = False) -> dict[str, Any]:
    """The response for a set of picks (``responseTokens`` still to be sealed), or with
    ``shell`` its shell (the entries' shells in place of the entries)."""
    return {"entries": [p.counted.stand if shell else p.entry for p in picks
                        if p.entry is not None],
            "reused": [r for p in picks for r in p.refs], "omitted": omitted,
            **plan.fields, "responseBudgetTokens": budget, "responseTokens": 0,
            **(extra or {})}


def pack(plan: Plan, budget: int, extra: dict[str, Any] | None = None, *,
         first_entry: bool = False) -> Packed:
    """Pack ``plan`` under ``budget`` tokens; ``extra`` fields ride along in the response.

    ``first_entry`` stops after the first entry (enough to learn whether any fits).
    """
    skeleton = response_of(plan, [], 0, _WIDE, extra)
    skeleton["responseTokens"] = _WIDE
    used = tokens_of(skeleton)
    picks: list[Pick] = []
    omitted = 0
    for src in plan.sources:
        pick, cost = _choose(plan, src, budget, budget - used)
        if pick is None:
            omitted += 1
        else:
            picks.append(pick)
            used += cost
            if first_entry and pick.entry is not None:
                break
    return _seal_within(plan, picks, omitted, budget, extra)


def _seal_within(plan: Plan, picks: list[Pick], omitted: int, budget: int,
                 extra: dict[str, Any] | None) -> Packed:
    """Seal the response, dropping the last pick while the exact count is over budget."""
    while True:
        response = response_of(plan, picks, omitted, budget, extra)
        shell = response_of(plan, picks, omitted, budget, extra, shell=True)
        text = seal(response, shell, sum(p.counted.added for p in picks))
        if response["responseTokens"] <= budget or not picks:
            return Packed(picks, omitted, response, text)
        picks = picks[:-1]
        omitted += 1


def _choose(plan: Plan, src: Source, budget: int, room: int) -> tuple[Pick | None, int]:
    """The richest level of ``src`` that fits in ``room`` tokens, and its cost."""
    if plan.known or plan.possessed:  # else no receipt to compute: nothing is held
        whole = src.unit(FILE)
        if whole.receipt in plan.known or whole.possession in plan.possessed:
            return _fits(Pick(None, [], [whole], [_ref(src, whole)]), room)
    ladder = LADDERS[plan.detail]
    stale = False
    if SLICES in ladder and plan.units(src, SLICES, budget) is None:
        ladder, stale = STALE_LADDER, True
    for level in ladder:
        if level == OUTLINE and _outline_cannot_fit(plan, src, room):
            continue
        if level == SLICES and src.lean:
            continue  # a file the task did not ask about: its best unit alone
        if level == LEAN and not src.lean and len(plan.units(src, SLICES, budget) or ()) <= 1:
            continue  # the slices were already one unit: nothing leaner
        units = plan.units(src, level, budget)
        if units is None:
            continue
        new = [u for u in units if u.receipt not in plan.known]
        if _surely_over(new, room):
            continue
        old = [u for u in units if u.receipt in plan.known]
        refs = [_ref(src, u) for u in old]
        pick, cost = _fits(_pick(src, level, new, old, refs, stale), room)
        if pick is not None:
            return pick, cost
    return None, 0


def _outline_cannot_fit(plan: Plan, src: Source, room: int) -> bool:
    """True when ``src``'s outline is new to the caller and surely over ``room``.

    Spares building it (a store read per symbol) for nothing: each symbol's JSON holds
    at least ``OUTLINE_FLOOR`` pre-tokenizer pieces, each at least one token (its four
    keys, the two line numbers, the ``":[`` and ``,`` around the first, the ``":"``
    after ``fqName`` and a word of the name).
    """
    floor = OUTLINE_FLOOR * len(src.node.symbols)
    return floor > room and src.unit(OUTLINE).receipt not in plan.known


def _surely_over(units: list[Unit], room: int) -> bool:
    """True when the bodies' text alone is longer than ``room`` tokens could hold."""
    chars = sum(len(u.body.get("text", "")) for u in units)
    return chars > room * MAX_CHARS_PER_TOKEN


def _fits(pick: Pick, room: int) -> tuple[Pick | None, int]:
    cost = sum(tokens_of(ref) + _SLACK for ref in pick.refs)
    if pick.entry is not None:
        cost += pick.counted.tokens + _SLACK
    return (pick, cost) if cost <= room else (None, 0)


def _pick(src: Source, level: str, new: list[Unit], old: list[Unit],
          refs: list[dict[str, str]], stale: bool) -> Pick:
    """The pick of ``src`` at ``level``, its entry counted from its units' counts."""
    if not new:
        return Pick(None, new, old, refs)
    head = _head(src, level, stale)
    holed = counted({**head, "units": [u.counted.stand for u in new]})
    bodies = sum(u.counted.added for u in new)
    return Pick({**head, "units": [u.body for u in new]}, new, old, refs,
                Counted(holed.stand, holed.added + bodies, holed.tokens + bodies))


def _head(src: Source, level: str, stale: bool) -> dict[str, Any]:
    """An entry's fields before its units."""
    head = {"path": src.path, "contentHash": src.node.digest,
            "detail": SLICES if level == LEAN else level,
            "fullReadTokenCount": src.node.tokens,
            "reasons": list(src.target.reasons[:MAX_REASONS])}
    if not src.fresh:
        head["stale"] = True
    if stale:
        head["note"] = STALE_NOTE
    return head


def _ref(src: Source, unit: Unit) -> dict[str, str]:
    return {"path": src.path, "kind": unit.kind, "receipt": unit.receipt}


def smallest_budget(admits: Callable[[int], bool], low: int, high: int) -> int | None:
    """The smallest budget in ``[low, high]`` for which ``admits`` holds, or None.

    Binary search (admission grows with the budget); the answer is always one that was
    checked to admit, so a retry with it works.
    """
    if not admits(high):
        return None
    while low < high:
        mid = (low + high) // 2
        if admits(mid):
            high = mid
        else:
            low = mid + 1
    return high
