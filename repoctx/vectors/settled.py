"""vectors/settled — the mark a back-fill leaves when its gap scan found nothing to do.

A no-op ``repoctx index`` with an embedder still ran the back-fill's gap scan: every
file node and memory entry decoded and checked against the coverage digest, ~0.55 s on
Django where the rest of the command takes ~0.1 s. A gap scan that finds nothing to
embed or retire leaves a mark in the store-local tree: the space, the kinds it looked
at, how many sources were live, the generations of the trees the scan reads
(``Trees.generation``, as its own snapshot saw them) and the earliest expiry of a live
memory entry or file node (the one thing that changes without a write). A later back-fill of that
space and those kinds that finds the same generations before that expiry would find
nothing either, so it skips the scan. Any record-writing batch of those trees, by any
process (a pass, a memory write, a sync, the back-fill itself), moves a generation and
so forces the next scan. Local, never replicated.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace

from repoctx.crdt import record
from repoctx.store import Store
from repoctx.trees import BY_FAMILY, Snapshot
from repoctx.vectors import sources

MARK = "vectors/settled/{repo}"
READ = tuple(BY_FAMILY[family].name
             for family in ("file", "mem", "vmem", "vec", "vcov", "vpay", "vidx"))
"""The trees a back-fill reads or writes: file nodes and memory entries (the live
sources), and every vector tree. A mark holds the generations its gap scan saw, so a
back-fill's own write after the scan (a retrain, an index built for a killed run's
vectors) unsettles the mark it leaves, and the next back-fill scans again."""
WRITTEN = READ[2:]
"""The trees a back-fill writes (``after_writes``)."""


@dataclass(frozen=True)
class Settled:
    """A gap scan that found nothing to do, and the state it looked at."""

    space: str
    kinds: tuple[str, ...]
    live: int
    generations: dict[str, int]
    until_ms: int | None
    """The earliest expiry of a memory entry or file node live then (None: none expires)."""
    windows: bool
    """``sources.CODE_FILE_WINDOWS`` then (which files are sources)."""


def new(snap: Snapshot, space: str, kinds: Iterable[str], live: int, memory_prefix: str,
        files_until_ms: int | None) -> Settled:
    """The mark for a gap scan over ``snap`` that found ``live`` sources and nothing to do
    (the earliest expiry of a live file node: ``files_until_ms``)."""
    expiries = [record.expires_ms(rec) for _, rec in snap.scan(memory_prefix)]
    until = min((e for e in [*expiries, files_until_ms] if e is not None), default=None)
    return Settled(space, tuple(sorted(kinds)), live, _generations(snap), until,
                   sources.CODE_FILE_WINDOWS)


def after_writes(snap: Snapshot, mark: Settled) -> Settled:
    """``mark``, of a gap scan whose back-fill then did all it found (and no retrain), as
    of ``snap`` read after that back-fill's last write: a scan now would find nothing
    either, while no one has written the live sources since the scan nor the vector
    trees since. So the first ``repoctx index`` after an edit's does not scan again."""
    return replace(mark, generations={**mark.generations,
                                      **{name: snap.generation(name) for name in WRITTEN}})


def _generations(snap: Snapshot) -> dict[str, int]:
    return {name: snap.generation(name) for name in READ}


def record_mark(store: Store, mark: Settled) -> None:
    """Keep ``mark`` as the store's (one local write)."""
    with store.batch() as batch:
        batch.put_local(MARK.format(repo=store.repo_id), asdict(mark))


def holds(store: Store, space: str, kinds: Iterable[str], now_ms: int | None = None,
          ) -> Settled | None:
    """The store's mark when a gap scan of ``space`` over ``kinds`` would find nothing
    to do now, else None."""
    with store.snapshot(now_ms) as snap:
        found = snap.get_local(MARK.format(repo=store.repo_id))
        if not isinstance(found, dict):
            return None
        try:
            mark = Settled(**found)
        except TypeError:  # another version's mark: scan, and mark afresh
            return None
        if (mark.space != space or not set(kinds) <= set(mark.kinds)
                or mark.windows != sources.CODE_FILE_WINDOWS
                or mark.generations != _generations(snap)):
            return None
        return mark if mark.until_ms is None or snap.now_ms < mark.until_ms else None
