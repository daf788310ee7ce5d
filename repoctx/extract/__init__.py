"""extract — language-dispatched symbol extraction (tree-sitter), one module per language.

The seam: a language is one module that builds a `Language` record
(`extract/language.py`) and one line in `registry._BUILTIN`. The record holds the
language's name and suffixes, its grammar package, `available()` (does the grammar
load), `symbols(path, text) -> tuple[Symbol, ...]`, `imports(path, text) ->
tuple[Import, ...]` (raw specifiers with lines), `resolve(importer, specifier, files)
-> path | None` (the language's import rules over a `Files` view of the repository),
`is_test_path(path)`, and `qualname_parts(path, fq_name)` (how a name nests in its
file). Most modules describe their definitions as `treewalk.Rule`s in a
`treewalk.Spec` and let `treewalk.symbols` do the walk; grammars load through
`grammar.load`, which yields None when the package is not installed, so the
language's files become text sections only and `missing_grammar` names the package
for the index report's warning. Extractors mark syntax-known tests (`Symbol.test`).
`links_of` (`extract/links.py`) says what a file imports, binds and re-exports, for the
store to keep. `definition_digests` (`extract/digest.py`) digests each definition's own
text from the file's text and the definitions' spans, the same way for every language.
The Python extractor also qualifies references as far as the file says
(`Symbol.targets`, from the file's `bindings_of`); the JavaScript/TypeScript one spells
member calls by their receivers, some as chains the store resolves (`receiver_chain`).

Invariants: pure functions of a path and its decoded text (no I/O, no store);
a language without an extractor (or without its grammar) declares no symbols;
extractors never raise on malformed source.
"""

from repoctx.extract.digest import definition_digests
from repoctx.extract.language import Files, Import, Language, split_qualname
from repoctx.extract.languages.js_exports import export_aliases
from repoctx.extract.languages.js_receivers import receiver_chain
from repoctx.extract.languages.python import bindings_of
from repoctx.extract.links import (
    Imported,
    Links,
    imports_in,
    links_from_wire,
    links_of,
    reexports_in,
)
from repoctx.extract.modules import module_name
from repoctx.extract.path_language import language_of
from repoctx.extract.registry import (
    Extractor,
    extract,
    extractor_for,
    imports_of,
    language_record,
    languages,
    missing_grammar,
    name_parts,
    qualify,
    qualname_parts,
    register,
    resolve_import,
    separator_of,
    simple_name,
)
from repoctx.extract.symbol import CLASS, FUNCTION, KINDS, METHOD, VARIABLE, Symbol
from repoctx.extract.testcode import is_test_file, is_test_name, is_test_path, is_test_symbol

__all__ = [
    "CLASS",
    "Extractor",
    "FUNCTION",
    "Files",
    "Import",
    "Imported",
    "KINDS",
    "Language",
    "Links",
    "METHOD",
    "Symbol",
    "VARIABLE",
    "bindings_of",
    "definition_digests",
    "export_aliases",
    "extract",
    "extractor_for",
    "imports_in",
    "imports_of",
    "is_test_file",
    "is_test_name",
    "is_test_path",
    "is_test_symbol",
    "language_of",
    "language_record",
    "languages",
    "links_from_wire",
    "links_of",
    "missing_grammar",
    "module_name",
    "name_parts",
    "qualify",
    "qualname_parts",
    "receiver_chain",
    "reexports_in",
    "register",
    "resolve_import",
    "separator_of",
    "simple_name",
    "split_qualname",
]
