"""memory — agent memory entries: the record, links and their digests, staleness,
remember/recall/update/forget, neighbours, bulk scans, keyword hits and archives.

Sits beside ``session`` above the reconcile (it reads file and symbol records to
capture and check link digests) and below retrieval, whose tools wrap these
functions. Record shape: ``memory_record``.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import body, links, memory_record, staleness, views
    from .archive import export_archive, import_archive, parse_archive
    from .body import MAX_BODY_BYTES
    from .entries import check_ttl, forget, live_entry, recall, remember, update
    from .graph import neighbors
    from .memory_record import KINDS, Entry, memory_key, parse_memory_key
    from .scan import SCOPES, list_topics, scan
    from .search import memory_hits
    from .staleness import NOT_EVALUATED, Staleness, evaluate

__all__ = [
    "Entry",
    "KINDS",
    "MAX_BODY_BYTES",
    "NOT_EVALUATED",
    "SCOPES",
    "Staleness",
    "body",
    "check_ttl",
    "evaluate",
    "export_archive",
    "forget",
    "import_archive",
    "links",
    "list_topics",
    "live_entry",
    "memory_hits",
    "memory_key",
    "memory_record",
    "neighbors",
    "parse_archive",
    "parse_memory_key",
    "recall",
    "remember",
    "scan",
    "staleness",
    "update",
    "views",
]

export_lazily(__name__, {
    ".archive": ("export_archive", "import_archive", "parse_archive"),
    ".body": ("MAX_BODY_BYTES",),
    ".entries": ("check_ttl", "forget", "live_entry", "recall", "remember", "update"),
    ".graph": ("neighbors",),
    ".memory_record": ("KINDS", "Entry", "memory_key", "parse_memory_key"),
    ".scan": ("SCOPES", "list_topics", "scan"),
    ".search": ("memory_hits",),
    ".staleness": ("NOT_EVALUATED", "Staleness", "evaluate"),
}, modules=("body", "links", "memory_record", "staleness", "views"))
