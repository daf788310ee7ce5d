"""vectors/ann/ann_index — the persisted approximate index: load, search, flush, retrain.

Works on the records of ``index_record``. A flush (``IndexWriter``) appends new vectors
to their partition's last chunk inside the caller's batch (so the index never lags
the back-fill batch that embedded them); a retired vector's entry stays in place and
is dropped at query time when its metadata no longer points at the same payload, and
for good by the next retrain. A retrain (``rebuild``) reads every live vector of the
space from metadata + payloads, trains about sqrt(n) partitions (one, an exact scan,
below ``ivf.EXACT_BELOW``), writes the new generation in batches, then its manifest,
then range-deletes the old generation. Retrain when drift (adds + removes since the
last training) exceeds a quarter of the trained corpus, or when the corpus crosses
the exact/approximate boundary (``needs_retrain``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from repoctx.crdt import tick_ms, wall_ms
from repoctx.store import Store
from repoctx.trees import BY_FAMILY, Batch, Snapshot, compact, key_name, lmdb_key
from repoctx.vectors.ann import index_record as ir
from repoctx.vectors.ann import ivf
from repoctx.vectors.records import metadata_record as mr
from repoctx.vectors.records import payload_record as pr

WRITE_CHUNKS = 256
"""Posting chunks per write transaction during a retrain."""
_CENTROIDS: dict[tuple[str, str, int], np.ndarray] = {}


@dataclass
class IndexView:
    """The live generation of one space's index, as read."""

    space: str
    gen: int
    dim: int
    nlist: int
    nprobe: int
    trained: int
    chunks: list[int]
    adds: int = 0
    removes: int = 0
    centroids: np.ndarray | None = None

    @property
    def exact(self) -> bool:
        """True when a query scans every vector."""
        return self.nlist <= 1 or self.nprobe >= self.nlist

    @property
    def live(self) -> int:
        """Vectors the index should hold now (trained, plus adds, less removes)."""
        return max(0, self.trained + self.adds - self.removes)


def load(snap: Snapshot, repo_id: str, space: str, *, cache_id: str = "") -> IndexView | None:
    """The index of ``space``, or None when there is none."""
    manifest = ir.value_of(snap.get(ir.manifest_key(repo_id, space)))
    if not manifest:
        return None
    gen = manifest["gen"]
    state = ir.value_of(snap.get(ir.state_key(repo_id, space, gen))) or {}
    view = IndexView(space, gen, manifest["dim"], manifest["nlist"], manifest["nprobe"],
                     manifest["trained"], list(state.get("chunks") or [0] * manifest["nlist"]),
                     state.get("adds", 0), state.get("removes", 0))
    view.centroids = _centroids(snap, repo_id, view, cache_id)
    return view


def _centroids(snap: Snapshot, repo_id: str, view: IndexView, cache_id: str) -> np.ndarray:
    ident = (cache_id, f"{repo_id}/{view.space}", view.gen)
    if cache_id and ident in _CENTROIDS:
        return _CENTROIDS[ident]
    parts, part = [], 0
    while True:
        raw = ir.value_of(snap.get(ir.centroid_key(repo_id, view.space, view.gen, part)))
        if raw is None:
            break
        parts.append(np.frombuffer(raw, dtype="<f4"))
        part += 1
    matrix = (np.concatenate(parts) if parts else np.zeros(0, np.float32)).reshape(-1, view.dim)
    if cache_id:
        _CENTROIDS[ident] = matrix
    return matrix


@dataclass(frozen=True, slots=True)
class Candidate:
    """A vector the index found: its id, payload address prefix and similarity."""

    vector_id: str
    addr: str
    score: float


def search(snap: Snapshot, repo_id: str, view: IndexView, query: np.ndarray, k: int,
           nprobe: int | None = None) -> list[Candidate]:
    """The ``k`` most similar indexed vectors (stale entries included; callers verify)."""
    cells = [0] if view.nlist <= 1 else ivf.probe(query, view.centroids, nprobe or view.nprobe)
    ids: list[str] = []
    addrs: list[str] = []
    blocks: list[np.ndarray] = []
    for cell in cells:
        for _, rec in snap.scan(ir.cell_prefix(repo_id, view.space, view.gen, int(cell))):
            posting = ir.posting_of(rec)
            ids += posting.ids
            addrs += posting.addr
            blocks.append(posting.matrix(view.dim))
    if not ids:
        return []
    scores = np.concatenate(blocks) @ query
    return [Candidate(ids[i], addrs[i], float(scores[i])) for i in ivf.top_k(scores, k)]


@dataclass
class IndexWriter:
    """Vectors to append to the live generation, flushed inside a back-fill batch."""

    repo_id: str
    space: str
    dim: int
    view: IndexView | None
    fresh_gen: int = 1
    """The generation a first flush creates when there is no index yet."""
    pending: list[tuple[str, str, bytes]] = field(default_factory=list)
    removed: int = 0
    deferred: bool = False
    """Keep flushed vectors in ``kept`` instead of writing them: a first back-fill of a
    space with no index trains one from ``kept`` at its end (``build_deferred``)."""
    kept: list[tuple[str, str, bytes]] = field(default_factory=list)

    def add(self, vid: str, addr: str, data: bytes) -> None:
        """Queue a new vector."""
        self.pending.append((vid, addr, data))

    def remove(self, count: int = 1) -> None:
        """Count retired vectors (their entries are filtered at query time)."""
        self.removed += count

    def flush(self, batch: Batch, tick: int, replica: str) -> None:
        """Append the queued vectors to their partitions' last chunks; update the state."""
        if not self.pending and not self.removed:
            return
        if self.deferred:
            self.kept += self.pending
            self.pending, self.removed = [], 0
            return
        if self.view is None:
            self.view = IndexView(self.space, self.fresh_gen, self.dim, 1, 1, 0, [0])
            _write_manifest(batch, self.repo_id, self.view, tick, replica)
        view = self.view
        by_cell: dict[int, list[tuple[str, str, bytes]]] = {}
        if self.pending:
            owner = self._owners()
            for cell, item in zip(owner, self.pending, strict=True):
                by_cell.setdefault(int(cell), []).append(item)
        for cell, items in sorted(by_cell.items()):
            self._append(batch, cell, items, tick, replica)
        view.adds += len(self.pending)
        view.removes += self.removed
        _write_state(batch, self.repo_id, view, tick, replica)
        self.pending, self.removed = [], 0

    def build_deferred(self, store: Store, seed: int = 0) -> IndexView | None:
        """Train and write the index from the kept vectors (a deferred writer's end), in
        the store's key order: the very input, so the very index, a retrain reading them
        back from the store would have."""
        self.kept.sort(key=lambda item: lmdb_key(mr.metadata_key(self.repo_id, item[0])))
        ids = [vid for vid, _, _ in self.kept]
        addrs = [addr for _, addr, _ in self.kept]
        matrix = np.frombuffer(b"".join(d for _, _, d in self.kept), dtype="<f4")
        self.kept = []
        self.view = rebuild(store, self.space, seed=seed,
                            vectors=(ids, addrs, matrix.reshape(len(ids), self.dim)))
        return self.view

    def _owners(self) -> np.ndarray:
        view = self.view
        if view is None or view.nlist <= 1:
            return np.zeros(len(self.pending), dtype=np.int64)
        matrix = np.frombuffer(b"".join(d for _, _, d in self.pending), dtype="<f4")
        return ivf.assign(matrix.reshape(-1, view.dim), view.centroids)

    def _append(self, batch: Batch, cell: int, items: list[tuple[str, str, bytes]], tick: int,
                replica: str) -> None:
        view = self.view
        last = max(0, view.chunks[cell] - 1)
        key = ir.chunk_key(self.repo_id, self.space, view.gen, cell, last)
        posting = ir.posting_of(batch.get(key)) if view.chunks[cell] else ir.Posting()
        for vid, addr, data in items:
            if posting.ids and not posting.fits(vid, view.dim):
                batch.merge(key, ir.value_delta(posting.wire(), tick, replica))
                last += 1
                key = ir.chunk_key(self.repo_id, self.space, view.gen, cell, last)
                posting = ir.Posting()
            posting.append(vid, addr, data)
        batch.merge(key, ir.value_delta(posting.wire(), tick, replica))
        view.chunks[cell] = last + 1


def next_generation(snap: Snapshot, repo_id: str, space: str) -> int:
    """A generation number no record of the space uses yet (for a fresh index)."""
    return max([0, *_generations(snap, repo_id, space, keep=None)]) + 1


def needs_retrain(view: IndexView | None) -> bool:
    """True when the index should be retrained (see the module docstring)."""
    if view is None:
        return False
    if (ivf.partitions_for(view.live) > 1) != (view.nlist > 1):
        return True
    return view.adds + view.removes > max(view.trained, 1) / 4


def live_vectors(snap: Snapshot, repo_id: str, space: str,
                 ) -> tuple[list[str], list[str], np.ndarray]:
    """Every live vector of ``space``: ids, payload addresses and the matrix."""
    ids, addrs, rows = [], [], []
    for key, rec in snap.scan(mr.space_prefix(repo_id, space)):
        vid = key_name(key)  # unescaped: the id metadata_key escapes again
        meta = mr.meta_of(vid, rec)
        if meta is None or meta.space != space:
            continue
        vector = pr.vector(snap.get(pr.payload_key(repo_id, meta.address)))
        if vector is None:
            continue  # the payload has not arrived (replication); the next retrain has it
        ids.append(vid)
        addrs.append(meta.address)
        rows.append(vector)
    dim = len(rows[0]) if rows else 0
    matrix = np.vstack(rows).astype(np.float32) if rows else np.zeros((0, dim), np.float32)
    return ids, addrs, matrix


def rebuild(store: Store, space: str, *, seed: int = 0,
            vectors: tuple[list[str], list[str], np.ndarray] | None = None) -> IndexView | None:
    """Retrain the index of ``space`` from its live vectors (or the ``vectors`` given)."""
    repo = store.repo_id
    with store.snapshot() as snap:
        old = load(snap, repo, space)
        ids, addrs, matrix = vectors if vectors is not None else live_vectors(snap, repo, space)
        stale = list(_generations(snap, repo, space, keep=None))
    gen = max([old.gen if old else 0, *stale]) + 1
    if not ids:
        drop(store, space)
        return None
    nlist = ivf.partitions_for(len(ids))
    centroids = ivf.train(matrix, nlist, seed)
    owner = ivf.assign(matrix, centroids)
    nprobe = ivf.calibrate(matrix, centroids, owner, seed=seed) if nlist > 1 else 1
    view = IndexView(space, gen, matrix.shape[1], nlist, nprobe, len(ids), [0] * nlist,
                     centroids=centroids)
    _write_generation(store, view, ids, addrs, matrix, owner)
    _delete_generations(store, space, keep=gen)
    return view


def _write_generation(store: Store, view: IndexView, ids: list[str], addrs: list[str],
                      matrix: np.ndarray, owner: np.ndarray) -> None:
    """The generation's chunks in batches, then its state, then the manifest, last."""
    repo, raw = store.repo_id, np.asarray(matrix, dtype="<f4")
    chunks: list[tuple[str, ir.Posting]] = []
    for cell in range(view.nlist):
        posting, number = ir.Posting(), 0
        for row in np.flatnonzero(owner == cell):
            if posting.ids and not posting.fits(ids[row], view.dim):
                chunks.append((ir.chunk_key(repo, view.space, view.gen, cell, number), posting))
                posting, number = ir.Posting(), number + 1
            posting.append(ids[row], addrs[row], raw[row].tobytes())
        if posting.ids:
            chunks.append((ir.chunk_key(repo, view.space, view.gen, cell, number), posting))
            number += 1
        view.chunks[cell] = number
    for start in range(0, len(chunks), WRITE_CHUNKS):
        with store.batch() as batch:
            tick = store.tick()
            for key, posting in chunks[start:start + WRITE_CHUNKS]:
                batch.merge(key, ir.value_delta(posting.wire(), tick, store.replica_id))
    with store.batch() as batch:
        tick = store.tick()
        for part, data in enumerate(ir.centroid_parts(view.centroids)):
            batch.merge(ir.centroid_key(repo, view.space, view.gen, part),
                        ir.value_delta(data, tick, store.replica_id))
        _write_state(batch, repo, view, tick, store.replica_id)
        _write_manifest(batch, repo, view, tick, store.replica_id)  # last: the switch


def _write_manifest(batch: Batch, repo: str, view: IndexView, tick: int, replica: str) -> None:
    manifest = {"gen": view.gen, "dim": view.dim, "nlist": view.nlist, "nprobe": view.nprobe,
                "trained": view.trained}
    batch.merge(ir.manifest_key(repo, view.space), ir.value_delta(manifest, tick, replica))


def _write_state(batch: Batch, repo: str, view: IndexView, tick: int, replica: str) -> None:
    state = {"chunks": list(view.chunks), "adds": view.adds, "removes": view.removes}
    batch.merge(ir.state_key(repo, view.space, view.gen), ir.value_delta(state, tick, replica))


def _generations(snap: Snapshot, repo: str, space: str, keep: int | None) -> Iterable[int]:
    """Generation numbers present under the space's prefix, other than ``keep``."""
    prefix = ir.space_prefix(repo, space)
    seen: set[int] = set()
    for key, _ in snap.scan(prefix, checked=False):  # keys only: checking every posting
        part = key[len(prefix):].split("/", 1)[0]   # costs ~80 ms of a one-file back-fill
        if part.startswith("g") and part[1:].isdigit() and int(part[1:]) != keep:
            seen.add(int(part[1:]))
    return sorted(seen)


def _delete_generations(store: Store, space: str, keep: int | None) -> None:
    """Range-delete every generation but ``keep`` (and the manifest when keep is None)."""
    repo = store.repo_id
    with store.snapshot() as snap:
        doomed = [key for gen in _generations(snap, repo, space, keep)
                  for key, _ in snap.scan(ir.gen_prefix(repo, space, gen))]
    if keep is None:
        doomed.append(ir.manifest_key(repo, space))
    if not doomed:
        return
    for start in range(0, len(doomed), WRITE_CHUNKS * 4):
        with store.batch() as batch:
            tick = store.tick()
            for key in doomed[start:start + WRITE_CHUNKS * 4]:
                batch.merge(key, ir.value_delta(None, tick, store.replica_id))
    reap_now(store)


def drop(store: Store, space: str) -> None:
    """Delete the whole index of ``space`` (manifest included)."""
    _delete_generations(store, space, keep=None)


def reap_now(store: Store) -> None:
    """Reap the index tree's tombstones at once: it is local and derived, so no replica
    needs to see them first (the grace period exists for replication)."""
    spec = BY_FAMILY[ir.FAMILY]
    now = max(wall_ms(), tick_ms(store.clock.last)) + (spec.grace_ms or 0) + 1000
    compact(store.trees, now_ms=now, names=[spec.name])
