"""vectors/semantic — semantic hits for a query, for search to fuse by reciprocal rank.

``semantic_hits(ws, query, k)`` embeds the query with the store's embedder, asks the
index of that embedder's space (exact below 1,024 vectors, else IVF), and hydrates the
candidates from metadata: an entry whose metadata is retired, of another space, or
points at another payload (the source was re-embedded since) is dropped; a source is
reported once, by its best chunk. The second value is the retrieval path:
``semantic.exact`` / ``semantic.approximate``, or the keyword fallbacks
``keyword.no_embedder`` (none configured), ``keyword.no_vectors`` (nothing embedded
yet in this space) and ``keyword.embedder_failed``. Reads only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from repoctx.store import Store
from repoctx.vectors.embedders.embedder import (
    Embedder,
    EmbedderError,
    is_none,
    l2_normalise,
    space_of,
)
from repoctx.vectors.embedders.settings import choose
from repoctx.vectors.records import metadata_record as mr
from repoctx.vectors.sources import MEMORY

if TYPE_CHECKING:  # the index (and numpy) load with the first vector search: a store
    from repoctx.vectors.ann import ann_index  # without an embedder never needs them

EXACT, APPROXIMATE = "semantic.exact", "semantic.approximate"
NO_EMBEDDER, NO_VECTORS, EMBEDDER_FAILED = (
    "keyword.no_embedder", "keyword.no_vectors", "keyword.embedder_failed")
OVERFETCH = 4
REASON = "semantic"


class HasStore(Protocol):
    """Anything with a ``store`` (the retrieval ``Workspace``)."""

    store: Store


def semantic_hits(ws: HasStore, query: str, k: int = 10, *, embedder: Embedder | None = None,
                  nprobe: int | None = None) -> tuple[list[dict[str, Any]], str]:
    """``(hits, retrievalPath)``: up to ``k`` sources nearest ``query``, best first."""
    store = ws.store
    embedder = embedder if embedder is not None else choose(store)
    if is_none(embedder) or k <= 0 or not query.strip():
        return [], NO_EMBEDDER if is_none(embedder) else EXACT
    try:
        vector = l2_normalise(embedder.embed([query]))[0]
    except Exception:  # fail open to the keyword path, which still answers
        return [], EMBEDDER_FAILED
    from repoctx.vectors.ann import ann_index  # numpy: only once there is a vector

    space = space_of(embedder)
    with store.snapshot() as snap:
        view = ann_index.load(snap, store.repo_id, space, cache_id=str(store.path))
        if view is None:
            return [], NO_VECTORS
        found = ann_index.search(snap, store.repo_id, view, vector, max(k * OVERFETCH, 40),
                                 nprobe)
        hits = _hydrate(snap, store.repo_id, space, found, k)
    exact = view.exact or (nprobe is not None and nprobe >= view.nlist)
    return hits, EXACT if exact else APPROXIMATE


def _hydrate(snap: Any, repo: str, space: str, found: list[ann_index.Candidate], k: int,
             ) -> list[dict[str, Any]]:
    hits: dict[str, dict[str, Any]] = {}
    for cand in found:
        meta = mr.meta_of(cand.vector_id, snap.get(mr.metadata_key(repo, cand.vector_id)))
        if meta is None or meta.space != space or not meta.address.startswith(cand.addr):
            continue  # retired or re-embedded since it was indexed
        if meta.source_id in hits:
            continue
        hits[meta.source_id] = _hit(meta, cand.score)
        if len(hits) == k:
            break
    return list(hits.values())


def _hit(meta: mr.VectorMeta, score: float) -> dict[str, Any]:
    kind = meta.attrs.get("kind")
    return {"key": meta.source, "kind": "memory" if kind == MEMORY else kind,
            "path": meta.attrs.get("path"), "symbol": meta.attrs.get("name"),
            "score": round(score, 4), "span": list(meta.span), "sourceId": meta.source_id,
            "vectorId": meta.vector_id, "reasons": [REASON]}


def query_embedder(embedder: Embedder) -> Any:
    """``embed(model, text)`` for ``contextpull.Reader(path, embed=...)``: the query's
    vector when ``model`` is this embedder's model (else an ``EmbedderError``)."""
    def embed(model: str, text: str) -> list[float]:
        if model != embedder.model:
            raise EmbedderError(f"the export's embeddings are {model}, not {embedder.model}")
        return l2_normalise(embedder.embed([text]))[0].tolist()
    return embed
