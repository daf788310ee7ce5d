"""vectors/backfill — after each reconcile, embed what has no membership (seed 003).

One call: gap scan (the 257-row coverage digest, or the membership scan when the digest
is unbuilt or damaged, which also rebuilds it) against the live sources; sources gone
or changed are retired, sources missing or changed are embedded, in batches where each
batch is one write transaction holding the payloads, metadata, membership flags,
coverage pages and index postings of its sources, so a crash loses at most the batch
in flight and the next call resumes from the digest. A source another replica already
embedded at the same version is adopted (indexed from its payloads), not re-embedded.
When the embedder's space differs from the one the store holds, the old space is
retired and its index dropped first: switching the embedder rebuilds. A failing
embedder stops the back-fill with ``error`` set in the report — it never raises, so it
cannot fail the structural pass that ran before it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from repoctx.camel import camel_keys
from repoctx.store import Store
from repoctx.trees import Batch, Snapshot
from repoctx.vectors import caught_up, settled
from repoctx.vectors.chunks import Chunk
from repoctx.vectors.embedders.embedder import (
    Embedder,
    EmbedderError,
    is_none,
    l2_normalise,
    space_of,
)
from repoctx.vectors.records import coverage, membership
from repoctx.vectors.records import membership_record as mm
from repoctx.vectors.records import metadata_record as mr
from repoctx.vectors.records import payload_record as pr
from repoctx.vectors.sources import (
    KINDS,
    MEMORY,
    FileMark,
    LiveSources,
    Source,
    live_since,
    live_sources,
    split_source_id,
)

if TYPE_CHECKING:  # numpy (and the index, which needs it) load only when there is work:
    import numpy as np  # a settled no-op back-fill never imports them

    from repoctx.vectors.ann import ann_index

Progress = Callable[[int, int], None]
"""``progress(done, total)`` after each batch, counted in sources."""
BATCH_TEXTS = 2048
"""Texts per write transaction: a crash loses at most this much embedding (well under a
second of the static embedder), and fewer, larger transactions rewrite the coverage
pages and commit far less often (256 made them half of a cold back-fill)."""
FIRST_TEXTS = 256
"""Texts of the first transaction; each next one doubles, up to ``batch_texts``: the
first vectors land (and progress moves) early, the bulk goes in large transactions."""
HELD = "vectors/space/{repo}"
"""Store-local: the space whose vectors the store holds."""


@dataclass
class BackfillReport:
    """What one back-fill did."""

    embedder: str
    space: str | None = None
    live: int = 0
    embedded: int = 0
    vectors: int = 0
    nil: int = 0
    adopted: int = 0
    retired: int = 0
    gap_rows: int = 0
    digest_rebuilt: bool = False
    switched_from: str | None = None
    retrained: bool = False
    remaining: int = 0
    error: str | None = None
    settled: bool = False
    """The gap scan was skipped: nothing it reads changed since one found nothing to do
    (``vectors/settled``)."""
    seconds: float = 0.0

    def as_json(self) -> dict[str, Any]:
        """The report as plain JSON values, keyed in camelCase like every answer."""
        return camel_keys({**asdict(self), "seconds": round(self.seconds, 3)})

    def text(self) -> str:
        """A one-line summary for the index report."""
        if self.space is None:
            return "vectors: no embedder (keyword search only)"
        line = (f"vectors ({self.embedder}): {self.embedded} sources embedded "
                f"({self.vectors} vectors), {self.adopted} adopted, {self.nil} with nothing "
                f"to embed, {self.retired} retired, {self.remaining} left")
        return line + (f"; embedder failed: {self.error}" if self.error else "")


@dataclass
class _Plan:
    todo: list[Source]
    retire: list[tuple[str, int]]
    covered: dict[str, coverage.Entry] = field(default_factory=dict)
    scanned: settled.Settled | None = None
    """The mark of this scan (a valid digest): left at once when there is nothing to do,
    else after a back-fill that did it all."""
    caught_up: tuple[int, dict[str, FileMark]] | None = None
    """The file and symbol sources live, and the file marks, for the mark a complete
    back-fill leaves (None: the last one still holds)."""

    @property
    def idle(self) -> bool:
        """Nothing to embed or retire."""
        return not (self.todo or self.retire)


def backfill(store: Store, embedder: Embedder | None, *, kinds: Iterable[str] = KINDS,
             batch_texts: int = BATCH_TEXTS, progress: Progress | None = None,
             now_ms: int | None = None, seed: int = 0) -> BackfillReport:
    """Bring the vector trees of the store's repository in line with its live sources."""
    started = time.perf_counter()
    report = BackfillReport("none" if embedder is None else embedder.name)
    if is_none(embedder):
        return report
    space = report.space = space_of(embedder)
    kinds = tuple(kinds)
    _switch(store, space, report)
    mark = settled.holds(store, space, kinds, now_ms)
    if mark is not None:
        report.live, report.settled = mark.live, True
        return _done(report, started)
    plan = _plan(store, space, kinds, now_ms, report)
    writer = _writer(store, embedder, space)
    # A first back-fill of the space (nothing covered, no index) keeps its vectors in
    # memory and trains the index from them once at its end, instead of appending to an
    # exact index per batch and reading every vector back for the retrain. A killed run
    # leaves vectors without an index; the next run builds it from the store.
    writer.deferred = writer.view is None and not plan.covered
    total, done = len(plan.todo) + len(plan.retire), 0
    for start in range(0, len(plan.retire), 512):
        part = plan.retire[start:start + 512]
        _retire_batch(store, space, part, writer, report)
        done += len(part)
        _tell(progress, done, total)
    try:
        for group in _groups(store, space, plan.todo, batch_texts, now_ms):
            _embed_batch(store, embedder, space, group, plan.covered, writer, report)
            done += len(group)
            _tell(progress, done, total)
    except EmbedderError as exc:
        # Fail open: the structural pass already committed; what is left is picked up
        # by the next back-fill's gap scan.
        report.error = str(exc)
    report.remaining = total - done
    if plan.scanned is not None and plan.idle:  # a write from here on (a retrain)
        settled.record_mark(store, plan.scanned)  # unsettles it again
    if writer.deferred:
        if writer.kept:
            writer.build_deferred(store, seed)
            report.retrained = True
    else:
        _maybe_retrain(store, space, writer, plan.covered, report, seed)
    _catch_up(store, space, kinds, plan, report)
    return _done(report, started)


def _catch_up(store: Store, space: str, kinds: tuple[str, ...], plan: _Plan,
              report: BackfillReport) -> None:
    """When nothing is left to do, leave (after the last write) the ``caught_up`` mark
    and, when this back-fill did work, the ``settled`` mark a scan now would leave. A
    digest invalidated since (a sync that brought membership in) leaves neither."""
    if report.error is not None or report.remaining:
        return
    with store.snapshot() as snap:
        if not coverage.built(snap, store.repo_id, space):
            return
        mark = None if plan.caught_up is None else caught_up.new(snap, space, kinds,
                                                                  *plan.caught_up)
        done = None if plan.scanned is None or plan.idle or report.retrained \
            else settled.after_writes(snap, plan.scanned)
    if mark is not None:
        caught_up.record_mark(store, mark)
    if done is not None:
        settled.record_mark(store, done)


def _done(report: BackfillReport, started: float) -> BackfillReport:
    report.seconds = time.perf_counter() - started
    return report


def _tell(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


def _switch(store: Store, space: str, report: BackfillReport) -> None:
    """Retire the vectors of another space the store holds, then record ours."""
    name = HELD.format(repo=store.repo_id)
    held = store.trees.get_local(name)
    if held and held != space:
        from repoctx.vectors.ann import ann_index

        membership.retire_space(store, held)
        ann_index.drop(store, held)
        report.switched_from = held
    if held != space:
        with store.batch() as batch:
            batch.put_local(name, space)


def _plan(store: Store, space: str, kinds: tuple[str, ...], now_ms: int | None,
          report: BackfillReport) -> _Plan:
    """The gap scan: what to retire and what to embed. While the last complete
    back-fill's ``caught_up`` mark holds, only the sources the file nodes changed since
    can have touched are compared with the digest (with every memory entry)."""
    repo = store.repo_id
    with store.snapshot(now_ms) as snap:
        found = coverage.read(snap, repo, space)
        prior = None if found is None else caught_up.holds(snap, repo, space, kinds)
        live = live_sources(store, snap, kinds) if prior is None else \
            live_since(store, snap, kinds, prior.files)
        if found is None:
            covered = membership.scan_covered(snap, repo, space)
        else:
            covered, report.gap_rows = found.entries, found.rows_read
        orphans = membership.orphaned_memkeys(snap, repo, space, live) if MEMORY in kinds \
            else []
        looked = covered if live.touched is None else \
            [*live.touched, *(sid for sid in covered if sid.startswith(f"{MEMORY}:"))]
        retire = sorted((sid, covered[sid][1]) for sid in looked
                        if sid in covered and sid not in live and split_source_id(sid)[0] in kinds)
        retire += [(sid, -1) for sid in orphans if sid not in covered]
        todo = [live[sid] for sid in sorted(_changed(live, covered))]
        count = _live_count(live, None if prior is None else prior.live, covered, kinds)
        scanned = None if found is None else settled.new(
            snap, space, kinds, count + live.memory(), store.key(MEMORY, "x")[:-1],
            live.until_ms)
    if found is None:
        report.digest_rebuilt = True
        with store.batch() as batch:
            coverage.rebuild(batch, repo, space, covered, store.tick(), store.replica_id)
    report.live = count + live.memory()
    fresh = prior is None or bool(todo or retire or live.touched)
    return _Plan(todo, retire, covered, scanned, (count, live.files) if fresh else None)


def _live_count(live: LiveSources, marked: int | None, covered: dict[str, coverage.Entry],
                kinds: tuple[str, ...]) -> int:
    """The file and symbol sources live now: what a full scan holds, else (a plan from a
    ``caught_up`` mark that counted ``marked``) that count with the touched sources the
    digest covered taken out and those live now put in."""
    if marked is None:
        return live.counted()
    before = sum(1 for sid in live.touched or ()
                 if sid in covered and split_source_id(sid)[0] in kinds)
    return marked - before + live.counted()


def _changed(live: LiveSources, covered: dict[str, coverage.Entry]) -> Iterator[str]:
    """The live sources not covered at their current version."""
    for sid, version in live.versions():
        found = covered.get(sid)
        if found is None or found[0] != version:
            yield sid


def _writer(store: Store, embedder: Embedder, space: str) -> ann_index.IndexWriter:
    from repoctx.vectors.ann import ann_index

    with store.snapshot() as snap:
        view = ann_index.load(snap, store.repo_id, space)
        fresh = ann_index.next_generation(snap, store.repo_id, space)
    return ann_index.IndexWriter(store.repo_id, space, embedder.dim, view, fresh)


def _retire_batch(store: Store, space: str, part: list[tuple[str, int]],
                  writer: ann_index.IndexWriter, report: BackfillReport) -> None:
    """Retire sources that are gone: digest first, then membership and metadata."""
    cov = coverage.CoverageWriter(store.repo_id, space)
    with store.batch() as batch:
        tick = store.tick()
        for sid, _ in part:
            cov.remove(sid)
        cov.apply(batch, tick, store.replica_id)
        for sid, count in part:
            gone = membership.retire_source(batch, store, space, sid, count, tick)
            writer.remove(gone)
            report.retired += 1
        writer.flush(batch, tick, store.replica_id)


@dataclass
class _Item:
    """A source of the batch with its chunks (or the vectors it adopts)."""

    source: Source
    chunks: list[Chunk]
    attrs: dict[str, Any]
    adopted: list[mr.VectorMeta] | None = None


def _groups(store: Store, space: str, todo: list[Source], batch_texts: int,
            now_ms: int | None) -> Iterable[list[_Item]]:
    """The sources to embed with their chunks, in groups of about ``batch_texts`` texts."""
    group: list[_Item] = []
    texts, limit = 0, min(FIRST_TEXTS, batch_texts)
    for start in range(0, len(todo), batch_texts):
        with store.snapshot(now_ms) as snap:
            items = [_item(store, snap, space, src) for src in todo[start:start + batch_texts]]
        for item in items:
            group.append(item)
            texts += len(item.chunks) if item.adopted is None else 0
            if texts >= limit:
                yield group
                group, texts, limit = [], 0, min(limit * 2, batch_texts)
    if group:
        yield group


def _item(store: Store, snap: Snapshot, space: str, src: Source) -> _Item:
    from repoctx.vectors.source_texts import (
        chunks_for,  # symbol records (and extract): only to embed
    )

    adopted = membership.adoptable(snap, store.repo_id, space, src)
    if adopted is not None:
        return _Item(src, [], {}, adopted)
    chunks, attrs = chunks_for(store, snap, src)
    return _Item(src, chunks, attrs)


def _embed_batch(store: Store, embedder: Embedder, space: str, group: list[_Item],
                 covered: dict[str, coverage.Entry], writer: ann_index.IndexWriter,
                 report: BackfillReport) -> None:
    """Embed one group and write everything it produces in one transaction."""
    texts = [c.text for item in group if item.adopted is None for c in item.chunks]
    vectors = _embed(embedder, texts)
    cov = coverage.CoverageWriter(store.repo_id, space)
    row = 0
    with store.batch() as batch:
        tick = store.tick()
        for item in group:
            src, old = item.source, covered.get(item.source.id, (None, -1))[1]
            if item.adopted is not None:
                _adopt(batch, store, item.adopted, writer)
                cov.add(src.id, src.version, len(item.adopted))
                report.adopted += 1
                continue
            rows = vectors[row:row + len(item.chunks)]
            row += len(item.chunks)
            written = _write_source(batch, store, space, item, rows, old, writer, tick)
            cov.add(src.id, src.version, written)
            report.embedded += 1 if written else 0
            report.nil += 0 if written else 1
            report.vectors += written
        cov.apply(batch, tick, store.replica_id)  # after membership; state row last
        writer.flush(batch, tick, store.replica_id)


def _embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    import numpy as np

    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    try:
        out = embedder.embed(texts)
    except EmbedderError:
        raise
    except Exception as exc:  # any failure inside a model is the embedder's failure
        raise EmbedderError(f"{embedder.name} failed: {type(exc).__name__}: {exc}") from exc
    out = np.asarray(out, dtype=np.float32)
    if out.shape != (len(texts), embedder.dim) or not np.isfinite(out).all():
        raise EmbedderError(f"{embedder.name} returned {out.shape}, not "
                            f"({len(texts)}, {embedder.dim}) finite values")
    return l2_normalise(out)


def _write_source(batch: Batch, store: Store, space: str, item: _Item, rows: np.ndarray,
                  old: int, writer: ann_index.IndexWriter, tick: int) -> int:
    """Payloads, metadata and flags of one embedded source; returns its vector count."""
    src, repo, replica = item.source, store.repo_id, store.replica_id
    if not item.chunks:
        membership.mark_nil(batch, store, space, src, old, tick)
        writer.remove(max(old, 0))
        return 0
    batch.update(mm.member_key(repo, src.id),
                 lambda cur: mm.enable_delta(cur, space, tick, replica))  # membership first
    for ordinal, (chunk, vector) in enumerate(zip(item.chunks, rows, strict=True)):
        addr, data = pr.encode_vector(vector)
        batch.update(pr.payload_key(repo, addr), lambda cur, d=data: pr.payload_delta(cur, d))
        vid = mr.vector_id(space, src.id, ordinal)
        meta = mr.VectorMeta(vid, src.key, src.id, addr, space, (chunk.start, chunk.end),
                             {**item.attrs, "ordinal": ordinal})
        batch.update(mr.metadata_key(repo, vid),
                     lambda cur, m=meta: mr.meta_delta(cur, m, tick, replica))
        writer.add(vid, addr, data)
    membership.after_embed(batch, store, space, src, len(item.chunks), old, tick)
    writer.remove(max(old, 0))
    return len(item.chunks)


def _adopt(batch: Batch, store: Store, metas: list[mr.VectorMeta],
           writer: ann_index.IndexWriter) -> None:
    for meta in metas:
        rec = batch.get(pr.payload_key(store.repo_id, meta.address))
        vector = pr.vector(rec)
        if vector is not None:
            writer.add(meta.vector_id, meta.address, vector.astype("<f4").tobytes())


def _maybe_retrain(store: Store, space: str, writer: ann_index.IndexWriter,
                   covered: dict[str, coverage.Entry], report: BackfillReport, seed: int,
                   ) -> None:
    """Retrain on drift; build the index when vectors exist but it does not (dropped)."""
    from repoctx.vectors.ann import ann_index

    view = writer.view
    missing = view is None and any(n > 0 for _, n in covered.values())
    if missing or ann_index.needs_retrain(view):
        ann_index.rebuild(store, space, seed=seed)
        report.retrained = True
