"""extract/languages/php — PHP symbols, includes/`use` imports and PHPUnit tests.

Invariants (beyond `treewalk`'s):
- names follow PHP: `Name\\Space\\Class` for types and functions, `Name\\Space\\Class::method`
  for methods; a `namespace X;` statement prefixes the rest of the file, a
  `namespace X { … }` block its body;
- classes, interfaces, traits and enums are `class`, functions `function`, methods
  `method`; properties, constants and `define()` are not symbols;
- the doc is the first text line of the PHPDoc (`/** … */`) right above;
- a method named `test…`, or whose PHPDoc says `@test`, or carrying `#[Test]`, in a
  class of a `*Test.php` file is a test;
- imports are `require`/`include` (`_once`) of a string literal (also `__DIR__ . '/x'`),
  resolved relative to the file then the root, and `use A\\B\\C;`, resolved through the
  PSR-4 map of the root `composer.json` (then `src/` and the root by path).
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import replace
from typing import Final

from tree_sitter import Node

from repoctx.extract.declarations import (
    dotted_suffix_parts,
    header_from,
    name_row,
    scan_imports,
    start_past,
)
from repoctx.extract.grammar import installed, load
from repoctx.extract.language import Files, Import, Language, first_existing
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, Symbol
from repoctx.extract.treewalk import Rule, Spec, symbols, text_of

_GRAMMAR: Final = "tree_sitter_php"
_INCLUDE = re.compile(
    r"""\b(?:require|include)(?:_once)?[ \t(]*(?:__DIR__[ \t]*\.[ \t]*)?["']([^"'\n]+)["']""")
_USE = re.compile(r"^[ \t]*use[ \t]+(?:function[ \t]+|const[ \t]+)?\\?([\w\\]+)", re.M)
_TEST_FILE = re.compile(r".+Test\.php\Z")
_ATTRIBUTES: Final = frozenset({"attribute_list", "comment"})
_NAMESPACE = re.compile(r"^[ \t]*namespace[ \t]+([\w\\]+)[ \t]*;", re.M)
_KEYWORDS: Final = frozenset({"self", "parent", "static", "isset", "empty", "array"})

_REFS: Final = """
(function_call_expression function: (name) @ref)
(member_call_expression name: (name) @ref)
(scoped_call_expression name: (name) @ref)
(object_creation_expression (name) @ref)
(base_clause (name) @ref)
(class_interface_clause (name) @ref)
"""


def _is_test(node: Node, source: bytes, path: str) -> bool:
    if not is_php_test_path(path):
        return False
    name = text_of(node.child_by_field_name("name"))
    if name.startswith("test"):
        return True
    previous = node.prev_named_sibling
    if previous is not None and previous.type == "comment" and "@test" in text_of(previous):
        return True
    attributes = node.child_by_field_name("attributes")
    return attributes is not None and "Test" in text_of(attributes)


def _namespace_name(node: Node, source: bytes) -> str | None:
    if node.child_by_field_name("body") is None:
        return None  # `namespace X;`: the file's prefix, see `_module`
    return text_of(node.child_by_field_name("name")) or None


def _module(path: str, source: bytes, root: Node) -> str:
    for child in root.children:
        if child.type == "namespace_definition" and child.child_by_field_name("body") is None:
            return text_of(child.child_by_field_name("name"))
    return ""


def _signature(node: Node, source: bytes) -> str:
    """The header past `#[Attribute]` lists, up to the body."""
    return header_from(source, start_past(node, _ATTRIBUTES), node, ("body",))


_TYPE = Rule(CLASS, start=name_row, signature=_signature)
_SPEC: Final = Spec(
    grammar=lambda path: load(_GRAMMAR, "language_php"),
    rules={
        "namespace_definition": Rule("", name=_namespace_name),
        "class_declaration": _TYPE, "interface_declaration": _TYPE,
        "trait_declaration": _TYPE, "enum_declaration": _TYPE,
        "function_definition": Rule(FUNCTION, start=name_row, signature=_signature),
        "method_declaration": Rule(METHOD, test=_is_test, start=name_row,
                                   signature=_signature),
    },
    refs=_REFS, module=_module, separator="\\", keywords=_KEYWORDS,
    before=frozenset({"attribute_list"}),
)


def extract_php(path: str, text: str) -> tuple[Symbol, ...]:
    """The types, functions and methods of PHP `text`, `Ns\\Class::method`-named."""
    found = symbols(_SPEC, path, text)
    statements = [(text.count("\n", 0, match.start()) + 1, match.group(1))
                  for match in _NAMESPACE.finditer(text)]
    return tuple(_php_name(symbol, statements) for symbol in found)


def _php_name(symbol: Symbol, statements: list[tuple[int, str]]) -> Symbol:
    """`Ns\\Class::method` for a method; a symbol after a second `namespace Y;`
    statement of the file is moved from the first namespace to `Y`."""
    fq_name = symbol.fq_name
    if len(statements) > 1:
        current = [name for line, name in statements if line <= symbol.start_line]
        first = statements[0][1]
        if current and current[-1] != first and fq_name.startswith(first + "\\"):
            fq_name = current[-1] + fq_name[len(first):]
    if symbol.kind == METHOD and "\\" in fq_name:
        fq_name = fq_name[: -len(symbol.name) - 1] + "::" + symbol.name
    return replace(symbol, fq_name=fq_name) if fq_name != symbol.fq_name else symbol


def php_imports(path: str, text: str) -> tuple[Import, ...]:
    """Included paths (`./x.php` for a `__DIR__`-relative one) and `use`d names."""
    found = list(scan_imports(_INCLUDE, text)) + list(scan_imports(_USE, text))
    return tuple(sorted(found, key=lambda item: item.line))


def _psr4(files: Files) -> dict[str, str]:
    text = files.read("composer.json")
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        return {}  # an unreadable composer.json maps nothing
    mapping: dict[str, str] = {}
    for section in ("autoload", "autoload-dev"):
        block = data.get(section, {}) if isinstance(data, dict) else {}
        for prefix, folder in (block.get("psr-4", {}) if isinstance(block, dict) else {}).items():
            for one in folder if isinstance(folder, list) else [folder]:
                mapping.setdefault(str(prefix), str(one))
    return mapping


def resolve_php(importer: str, specifier: str, files: Files) -> str | None:
    """An included path relative to the importer then the root; a `use`d class by the
    PSR-4 prefixes of `composer.json`, then as `src/A/B/C.php` and `A/B/C.php`."""
    if specifier.endswith((".php", ".inc")) or "/" in specifier:
        relative = specifier.lstrip("/")
        return first_existing(files, [posixpath.join(posixpath.dirname(importer), relative),
                                  relative])
    candidates = []
    for prefix, folder in sorted(_psr4(files).items(), key=lambda item: -len(item[0])):
        if specifier.startswith(prefix):
            rest = specifier[len(prefix):].replace("\\", "/")
            candidates.append(posixpath.join(folder, rest + ".php"))
    path = specifier.replace("\\", "/") + ".php"
    return first_existing(files, [*candidates, f"src/{path}", path])


def is_php_test_path(path: str) -> bool:
    """True for PHPUnit's convention, `*Test.php`."""
    return _TEST_FILE.match(path.replace("\\", "/").rsplit("/", 1)[-1]) is not None


def _qualname_parts(path: str, fq_name: str) -> tuple[str, ...] | None:
    return dotted_suffix_parts(path, fq_name.replace("::", "\\"), "\\")


LANGUAGE: Final = Language(
    name="php", suffixes=(".php",), grammar="tree-sitter-php",
    available=lambda: installed(_GRAMMAR, "language_php"), symbols=extract_php,
    imports=php_imports, resolve=resolve_php, is_test_path=is_php_test_path,
    qualname_parts=_qualname_parts, separator="\\",
)
"""PHP on the language seam."""
