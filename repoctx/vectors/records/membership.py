"""vectors/records/membership — reads and writes over the membership range of one space.

The scan the coverage digest stands in for (``scan_covered``: membership flags, with
versions and vector counts from the metadata), the memory-orphan check over the
``memkey-`` markers, adoption of a source another replica embedded, and the flag and
metadata changes of embedding, marking ``nil-`` and retiring a source. Record shapes
are ``membership_record`` and ``metadata_record``; this module only sequences them.
"""

from __future__ import annotations

from collections.abc import Mapping

from repoctx.store import Store
from repoctx.trees import Batch, Snapshot, family_prefix, key_name, make_key
from repoctx.vectors.records import membership_record as mm
from repoctx.vectors.records import metadata_record as mr
from repoctx.vectors.records.coverage import Entry
from repoctx.vectors.sources import MEMORY, Source, source_id, split_source_id

MAX_PROBE = 4096
"""Ordinals tried when a source's vector count is unknown (files have at most 32)."""


def scan_covered(snap: Snapshot, repo: str, space: str) -> dict[str, Entry]:
    """Covered sources from the whole membership range (the digest's fallback)."""
    versions: dict[str, tuple[str | None, int]] = {}
    for key, rec in snap.scan(mr.space_prefix(repo, space)):
        meta = mr.meta_of(key_name(key), rec)
        if meta is None or meta.space != space:
            continue
        version, count = versions.get(meta.source_id, (meta.attrs.get("version"), 0))
        ordinal = int(meta.attrs.get("ordinal", 0))
        versions[meta.source_id] = (version, max(count, ordinal + 1))
    covered: dict[str, Entry] = {}
    for key, rec in snap.scan(family_prefix(repo, mm.FAMILY)):
        kind, name = mm.marker_kind(key_name(key))
        if kind == "memkey" or not mm.is_on(rec, space):
            continue
        if kind == "nil":
            covered.setdefault(name, (None, 0))  # version unknown: re-checked, cheaply
        else:
            covered[name] = versions.get(name, (None, -1))
    return covered


def orphaned_memkeys(snap: Snapshot, repo: str, space: str, live: Mapping[str, Source],
                     ) -> list[str]:
    """Memory sources recorded under a ``memkey-`` marker whose entry is gone or expired."""
    live_keys = {live[sid].key for sid in live if sid.startswith(f"{MEMORY}:")}
    out = []
    for key, rec in snap.scan(mm.memkey_key(repo, "x")[:-1]):
        _, memory_key = mm.marker_kind(key_name(key))
        if mm.is_on(rec, space) and memory_key not in live_keys:
            out.append(source_id(MEMORY, memory_key.split("/mem/", 1)[-1]))
    return out


def adoptable(snap: Snapshot, repo: str, space: str, src: Source) -> list[mr.VectorMeta] | None:
    """The vectors another replica embedded for ``src`` at its current version, if any."""
    if not mm.is_on(snap.get(mm.member_key(repo, src.id)), space):
        return None
    metas = []
    for ordinal in range(MAX_PROBE):
        vid = mr.vector_id(space, src.id, ordinal)
        meta = mr.meta_of(vid, snap.get(mr.metadata_key(repo, vid)))
        if meta is None:
            break
        if meta.attrs.get("version") != src.version or meta.space != space:
            return None
        metas.append(meta)
    return metas or None


def after_embed(batch: Batch, store: Store, space: str, src: Source, count: int, old: int,
                tick: int) -> None:
    """Flags and leftovers after ``count`` vectors were written for ``src``."""
    repo, replica = store.repo_id, store.replica_id
    _retire_ordinals(batch, store, space, src.id, count, old, tick)
    batch.update(mm.nil_key(repo, src.id), lambda cur: mm.disable_delta(cur, space, tick))
    if src.kind == MEMORY:
        batch.update(mm.memkey_key(repo, src.key),
                     lambda cur: mm.enable_delta(cur, space, tick, replica))


def mark_nil(batch: Batch, store: Store, space: str, src: Source, old: int, tick: int) -> None:
    """``src`` has nothing to embed: enable its ``nil-`` marker, retire what it had."""
    repo, replica = store.repo_id, store.replica_id
    batch.update(mm.nil_key(repo, src.id), lambda cur: mm.enable_delta(cur, space, tick, replica))
    if old != 0:
        batch.update(mm.member_key(repo, src.id), lambda cur: mm.disable_delta(cur, space, tick))
        _retire_ordinals(batch, store, space, src.id, 0, old, tick)
    if src.kind == MEMORY:
        batch.update(mm.memkey_key(repo, src.key), lambda cur: mm.disable_delta(cur, space, tick))


def retire_source(batch: Batch, store: Store, space: str, sid: str, count: int, tick: int,
                  ) -> int:
    """Disable every flag of ``sid`` and retire its vectors; returns how many it had."""
    repo = store.repo_id
    for key in (mm.member_key(repo, sid), mm.nil_key(repo, sid)):
        batch.update(key, lambda cur: mm.disable_delta(cur, space, tick))
    kind, name = split_source_id(sid)
    if kind == MEMORY:
        memory_key = make_key(repo, MEMORY, name)
        batch.update(mm.memkey_key(repo, memory_key),
                     lambda cur: mm.disable_delta(cur, space, tick))
    return _retire_ordinals(batch, store, space, sid, 0, count, tick)


def _retire_ordinals(batch: Batch, store: Store, space: str, sid: str, start: int, end: int,
                     tick: int) -> int:
    """Retire the metadata of ordinals ``start..end-1`` (``end`` -1: until one is missing)."""
    repo, replica = store.repo_id, store.replica_id
    retired = 0
    stop = MAX_PROBE if end < 0 else end
    for ordinal in range(start, stop):
        key = mr.metadata_key(repo, mr.vector_id(space, sid, ordinal))
        if end < 0 and mr.meta_of("", batch.get(key)) is None:
            break
        batch.update(key, lambda cur: mr.retire_delta(cur, tick, replica))
        retired += 1
    return retired


def retire_space(store: Store, space: str, chunk: int = 2048) -> int:
    """Disable every flag of ``space`` and retire its metadata (switching embedders)."""
    repo = store.repo_id
    with store.snapshot() as snap:
        flags = [key for key, rec in snap.scan(mm.member_key(repo, "x")[:-1])
                 if mm.is_on(rec, space)]
        metas = [key for key, _ in snap.scan(mr.space_prefix(repo, space))]
    for start in range(0, max(len(flags), len(metas)), chunk):
        with store.batch() as batch:
            tick = store.tick()
            for key in metas[start:start + chunk]:
                batch.update(key, lambda cur, t=tick: mr.retire_delta(cur, t, store.replica_id))
            for key in flags[start:start + chunk]:
                batch.update(key, lambda cur, t=tick: mm.disable_delta(cur, space, t))
    return len(metas)
