"""vectors/source_texts — read what a source is embedded as, from the store.

A file's chunks are windows over its content record's bounded body; a symbol's one
chunk comes from its primary declaration (source file before stub); a memory entry's
text is already on its ``Source``. Reads only, through the caller's snapshot.
"""

from __future__ import annotations

from typing import Any

from repoctx.reconcile.nodes import content_record, symbol_record
from repoctx.store import Store
from repoctx.trees import Snapshot
from repoctx.vectors.chunks import Chunk, memory_chunks, symbol_chunks, windows
from repoctx.vectors.sources import FILE, MEMORY, SYMBOL, Source, split_source_id


def chunks_for(store: Store, snap: Snapshot, source: Source) -> tuple[list[Chunk], dict[str, Any]]:
    """The chunks of ``source`` and the attributes its vectors carry."""
    attrs: dict[str, Any] = {"kind": source.kind, "path": source.path,
                             "version": source.version}
    if source.kind == FILE:
        body = content_record.body(snap.get(store.key("content", source.path)))
        return windows(body or ""), attrs
    if source.kind == SYMBOL:
        fq = split_source_id(source.id)[1]
        found = symbol_record.primary(symbol_record.declarations(snap.get(source.key)))
        if found is None:
            return [], attrs
        path, decl = found
        attrs.update(path=path, symbolKind=decl.kind, name=fq)
        return symbol_chunks(fq, decl.kind, decl.signature, decl.doc, decl.start_line,
                             decl.end_line), attrs
    if source.kind == MEMORY:
        attrs["memoryKey"] = source.key
        return memory_chunks(source.text or ""), attrs
    return [], attrs
