"""reconcile/nodes/links_wire — which shape of a content record's ``links`` a store holds.

``LINKS_VERSION`` counts the shapes of ``extract.Links.wire`` (and changes of what
``extract.links_of`` finds); the file node marker ``file_node.LINKS`` names the one a
file's content record was written with, so a store written by an older version (none,
or another shape) re-projects its content once, as a back-fill. Apart from
``content_record`` so that reading a file node imports nothing the extractors need.
"""

from __future__ import annotations

LINKS_VERSION = 1
"""Raised with every change of ``extract.Links``'s wire or of what ``links_of`` reads
(1: imports, Python bindings, re-exports)."""
