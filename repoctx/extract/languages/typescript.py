"""extract/languages/typescript — TypeScript (+TSX) symbols, imports and tests from
tree-sitter-typescript.

Invariants: pure; never raises on a `str`. Everything `extract/languages/javascript` says, plus
TypeScript's declarations: interfaces, enums, type aliases and abstract classes are
`class`es (the signature keeps the keyword), method signatures of interfaces and
abstract methods are their `method`s, `function` overload signatures fold into the
implementation (same name), class fields holding a function are methods, and a
`namespace N { … }` qualifies what it declares (`N.f`) without being a symbol itself.
`.tsx` files parse with the TSX grammar (JSX element names are references).
"""

from __future__ import annotations

from typing import Final

from tree_sitter import Language as Grammar
from tree_sitter import Node

from repoctx.extract import treewalk
from repoctx.extract.grammar import installed, load
from repoctx.extract.language import Import, Language
from repoctx.extract.languages import javascript as js
from repoctx.extract.symbol import CLASS, FUNCTION, Symbol
from repoctx.extract.treewalk import Rule


def _in_class(node: Node) -> bool:
    """A method signature in a class body is an overload of the method that follows."""
    return node.parent is not None and node.parent.type == "class_body"


_TS_REFS: Final = js.JS_REFS + """
(type_identifier) @ref
(extends_clause value: (identifier) @ref)
(extends_clause value: (member_expression property: (property_identifier) @ref))
"""
_RULES: Final = {
    **js.COMMON_RULES,
    "abstract_class_declaration": Rule(CLASS),
    "interface_declaration": Rule(CLASS),
    "enum_declaration": Rule(CLASS),
    "type_alias_declaration": Rule(CLASS, header_end=("value",)),
    "function_signature": Rule(FUNCTION, header_end=(), overload=True),
    "method_signature": Rule(FUNCTION, header_end=(), overload=_in_class),
    "abstract_method_signature": Rule(FUNCTION, header_end=()),
    "public_field_definition": Rule(js._field, name=js._field_name,
                                    signature=js._field_signature),
    "internal_module": Rule("", methods=False),
}


def _grammar(path: str) -> Grammar | None:
    tsx = path.lower().endswith(".tsx")
    return load("tree_sitter_typescript", "language_tsx" if tsx else "language_typescript")


SPEC, TEST_SPEC = js.specs(_grammar, _RULES, _TS_REFS)
TSX_SPEC, TSX_TEST_SPEC = js.specs(_grammar, _RULES, _TS_REFS + js.JSX_REFS)


def extract_typescript(path: str, text: str) -> tuple[Symbol, ...]:
    """The classes, interfaces, enums, types, functions, methods and module bindings of
    TypeScript `text` (TSX for a `.tsx` path)."""
    test = js.is_js_test_path(path)
    if path.lower().endswith(".tsx"):
        return treewalk.symbols(TSX_TEST_SPEC if test else TSX_SPEC, path, text)
    return treewalk.symbols(TEST_SPEC if test else SPEC, path, text)


def typescript_imports(path: str, text: str) -> tuple[Import, ...]:
    """The import specifiers of TypeScript `text`, with their lines."""
    return js.read_imports(_grammar(path), text)


LANGUAGE: Final = Language(
    name="typescript", suffixes=(".ts", ".tsx", ".mts", ".cts"),
    grammar="tree-sitter-typescript",
    available=lambda: installed("tree_sitter_typescript", "language_typescript"),
    symbols=extract_typescript, imports=typescript_imports, resolve=js.resolve_relative,
    is_test_path=js.is_js_test_path, module=js.module_of,
)
"""TypeScript (and TSX) on the language seam."""
