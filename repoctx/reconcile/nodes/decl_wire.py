"""reconcile/nodes/decl_wire — which shape of the declaration tuple a store holds.

``symbol_record.Declaration.wire`` only grows at its end; ``WIRE_VERSION`` counts its
shapes, and the file node marker ``file_node.DECLS`` names the shape a file's symbols
were written in. Apart from ``symbol_record`` so that reading a file node (all a
no-op pass does) imports nothing the symbol records need.
"""

from __future__ import annotations

WIRE_VERSION = 5
"""Raised with every element added to ``Declaration.wire`` (and when an extractor's
references change), which makes the next pass re-project every file's declarations
(2: ``digest``; 3: ``targets``; 4: JavaScript/TypeScript targets and a binding's
value as a reference; 5: JavaScript/TypeScript receiver chains)."""
