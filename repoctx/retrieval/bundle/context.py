"""retrieval/bundle/context — ``repocontext_context``: a token-budgeted bundle for a task.

Rank (search, plus the task's named definitions with their tests and dependents),
group per file, pack greedily under the budget (``packing``), charge the whole
serialized response (``wire``), and record what was delivered in the session
(``repoctx.session``). Whole-file possession is recorded only for whole bodies sent,
and a ``known`` ``path@hash`` claim counts only when the session's possession holds it.
When nothing fits, ``retryBudgetTokens`` is the smallest budget that admits an entry,
found by packing the same plan (so a retry with it works).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from repoctx.crdt import wall_ms
from repoctx.errors import ToolError
from repoctx.reconcile.nodes.content_record import CONTENT_TREE
from repoctx.retrieval.bundle.definition_slices import TaskTerms, task_terms
from repoctx.retrieval.bundle.expansion import expand, gather
from repoctx.retrieval.bundle.file_class import (
    classify,
    ordered,
    secondary,
    task_asks,
)
from repoctx.retrieval.bundle.packing import DETAILS, Packed, Plan, pack, smallest_budget
from repoctx.retrieval.bundle.rank import Candidate, Ranker, default_rank
from repoctx.retrieval.bundle.units import Source, load
from repoctx.retrieval.search.state import search_state
from repoctx.retrieval.search.task_text import check_text, index_stats, pasted_task
from repoctx.retrieval.tuning import TUNING, Tuning
from repoctx.retrieval.workspace import Workspace
from repoctx.session import (
    SessionView,
    check_session_id,
    record_delivery,
    session_view,
    split_claim,
)

MIN_BUDGET, MAX_BUDGET, DEFAULT_BUDGET = 1, 200_000, 8192
MIN_TOP, MAX_TOP, DEFAULT_TOP = 1, 50, 10
MAX_PLAN = 150
MAX_LIST = 10_000
XREF = "xref"


def context(ws: Workspace, task: str, *, responseBudgetTokens: int = DEFAULT_BUDGET,
            top: int | None = None, detail: str = "auto", seen: Sequence[str] = (),
            known: Sequence[str] = (), session: str | None = None,
            rank: Ranker | None = None, now_ms: int | None = None) -> dict[str, Any]:
    """A bundle of what ``task`` needs that fits ``responseBudgetTokens`` (see module doc)."""
    task = _task(task)
    budget = clamp("responseBudgetTokens", responseBudgetTokens, MIN_BUDGET, MAX_BUDGET)
    top = plan_size(budget, None if top is None else clamp("top", top, MIN_TOP, MAX_TOP),
                    ws.tuning)
    if detail not in DETAILS:
        raise ToolError(f"detail: must be one of {', '.join(DETAILS)} (got {detail!r})")
    seen_set = frozenset(_strings("seen", seen))
    claims = _claims(known)
    session_id = None if session is None else check_session_id(session)
    now = wall_ms() if now_ms is None else now_ms
    view = session_view(ws.store, session_id, now) if session_id else SessionView()
    with ws.pinned():  # ranking, expansion and packing share their store lookups
        plan = _plan(ws, task, top, detail, seen_set | view.receipts,
                     claims & view.possession, rank or default_rank)
        packed = pack(plan, budget)
        if not packed.entries and packed.omitted:
            packed = pack(plan, budget, {"retryBudgetTokens": retry_budget(plan, budget)})
    if session_id:
        _record(ws, session_id, packed, view, now)
    return packed.response


def plan_size(budget: int, top: int | None, tuning: Tuning = TUNING) -> int:
    """How many files the plan considers: ``top`` when given, else one per
    ``tokens_per_file`` tokens of budget (at least ``DEFAULT_TOP``, at most ``MAX_PLAN``),
    so the plan of a larger budget holds the plan of a smaller one."""
    if top is not None:
        return top
    return max(DEFAULT_TOP, min(MAX_PLAN, budget // tuning.bundle.tokens_per_file))


def _plan(ws: Workspace, task: str, top: int, detail: str, known: frozenset[str],
          possessed: frozenset[str], rank: Ranker) -> Plan:
    task = pasted_task(task, lambda: search_state(ws.export))
    base = list(rank(ws, task, top))
    candidates = expand(ws, task, base, top)
    sources = [s for t in gather(candidates, top) if (s := load(ws, t)) is not None]
    sources = by_class(ws, task, sources)
    for place, src in enumerate(sources):
        src.place = place
    return Plan(sources, detail, known, possessed,
                {"retrievalPath": retrieval_path(base, len(candidates) > len(base))},
                terms_of(ws, task))


def terms_of(ws: Workspace, task: str) -> TaskTerms:
    """The task's weighted terms, rarity from the search index when there is one."""
    return task_terms(task, index_stats(search_state(ws.export), ws.tuning))


def by_class(ws: Workspace, task: str, sources: list[Source]) -> list[Source]:
    """``sources`` with tests, prose and release notes behind the source the task did not
    ask them over, and vendored, generated, minified, data and locale files last
    (``file_class``, read from each file's content); those the task did not ask about
    go lean (their best unit alone, ``file_class.secondary``)."""
    classes = [_class_of(ws, s) for s in sources]
    asks = task_asks(task)
    for src, cls in zip(sources, classes, strict=True):
        src.lean = secondary(cls, asks)
    return [sources[i] for i in ordered(classes, asks, tuning=ws.tuning)]


CLASSES_KEPT = 100_000
"""Files whose class a workspace keeps; past it they start over."""


def _class_of(ws: Workspace, src: Source) -> str:
    """``file_class.classify`` of a source, once per content (digest) and readability: a
    class costs a scan of the file's head, and the same files come back call after call."""
    text = src.text()
    return ws.kept("file-classes", CONTENT_TREE, (src.path, src.node.digest, text is None),
                   lambda: classify(src.path, src.node.language, text,
                                    search_state(ws.export).own_holders()), CLASSES_KEPT,
                   dict[tuple[str, str, bool], str])


def retrieval_path(base: Iterable[Candidate], expanded: bool) -> str:
    """How candidates were found: the rankers' sources, then ``xref`` when it added any."""
    parts = dict.fromkeys(c.reason.split(":", 1)[0] for c in base)
    if expanded:
        parts[XREF] = None
    return "+".join(parts) or "none"


def retry_budget(plan: Plan, budget: int) -> int | None:
    """The smallest budget above ``budget`` whose bundle has an entry, or None."""
    found = smallest_budget(lambda b: bool(pack(plan, b, first_entry=True).entries),
                            budget + 1, MAX_BUDGET)
    # The full pack can differ from the first-entry probe by a digit of ``omitted``;
    # step up until the response a retry would really get has an entry.
    while found is not None and not pack(plan, found).entries:
        found = found + 1 if found < MAX_BUDGET else None
    return found


def _record(ws: Workspace, session_id: str, packed: Packed, view: SessionView,
            now: int) -> None:
    """Delivered units, and the session's own units reused (their TTL slides)."""
    receipts: list[str] = []
    possessions: list[str] = []
    for pick in packed.picks:
        for unit in pick.delivered:
            receipts.append(unit.receipt)
            if unit.possession:
                possessions.append(unit.possession)
        for unit in pick.reused:
            if unit.receipt in view.receipts:
                receipts.append(unit.receipt)
            if unit.possession in view.possession:
                possessions.append(unit.possession)
    record_delivery(ws.store, session_id, receipts, possessions, now)


def clamp(name: str, value: object, low: int, high: int) -> int:
    """An integer argument clamped to ``[low, high]``; a non-integer is a ``ToolError``."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ToolError(f"{name}: must be an integer in {low}..{high} (got {value!r})")
    return max(low, min(high, value))


def _task(task: object) -> str:
    if not isinstance(task, str) or not task.strip():
        raise ToolError("task: must be a non-empty string describing the work")
    return check_text(task, "task")


def _strings(name: str, values: object) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence | frozenset | set):
        raise ToolError(f"{name}: must be a list of strings")
    if len(values) > MAX_LIST or not all(isinstance(v, str) for v in values):
        raise ToolError(f"{name}: must be a list of at most {MAX_LIST} strings")
    return list(values)


def _claims(known: object) -> frozenset[str]:
    claims = _strings("known", known)
    for claim in claims:
        if split_claim(claim) is None:
            raise ToolError(f"known: each claim is 'path@contentHash' (got {claim[:80]!r})")
    return frozenset(claims)
