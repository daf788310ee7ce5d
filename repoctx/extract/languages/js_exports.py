"""extract/languages/js_exports — the other names a JavaScript/TypeScript file exports its
definitions under.

`export { stringType as string }` makes an importer's `z.string()` call the file's
`stringType`: a reference by simple name meets the exported name, never the local one.
Only a clause without `from` renames the file's own bindings (`export { a as b } from
"./x"` renames another file's, and `export * as z` names a namespace, whose members keep
their names). A clause exporting a name as itself adds nothing.

Invariants: pure; no I/O; never raises on a `str`.
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Query, QueryCursor

from repoctx.extract.grammar import encode, load, parse
from repoctx.extract.treewalk import text_of

_SUFFIXES: Final = {".ts": "language_typescript", ".mts": "language_typescript",
                    ".cts": "language_typescript", ".tsx": "language_tsx"}
_JS: Final = (".js", ".jsx", ".mjs", ".cjs")
_RENAMES: Final = """
(export_statement !source (export_clause
  (export_specifier name: (identifier) @local alias: (identifier) @exported)))
"""
_QUERIES: dict[int, Query] = {}


def export_aliases(path: str, text: str) -> dict[str, tuple[str, ...]]:
    """Local name -> the other names the file exports it as (sorted), for a JS/TS file;
    ``{}`` for any other file or one without renaming exports."""
    if "export" not in text or " as " not in text:
        return {}  # the common case, without a parse
    grammar = _grammar(path)
    if grammar is None:
        return {}
    query = _QUERIES.get(id(grammar))
    if query is None:
        query = _QUERIES[id(grammar)] = Query(grammar, _RENAMES)
    found: dict[str, set[str]] = {}
    for _, captures in QueryCursor(query).matches(parse(grammar, encode(text))):
        local, exported = text_of(captures["local"][0]), text_of(captures["exported"][0])
        if local and exported and local != exported:
            found.setdefault(local, set()).add(exported)
    return {name: tuple(sorted(names)) for name, names in sorted(found.items())}


def _grammar(path: str):
    lowered = path.lower()
    for suffix, language in _SUFFIXES.items():
        if lowered.endswith(suffix):
            return load("tree_sitter_typescript", language)
    return load("tree_sitter_javascript") if lowered.endswith(_JS) else None
