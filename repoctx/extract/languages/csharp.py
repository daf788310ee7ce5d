"""extract/languages/csharp — C# symbols, `using` imports and xUnit/NUnit/MSTest tests.

Invariants (beyond `treewalk`'s):
- names join namespaces and types with `.`: `Namespace.Class.Method` (a file-scoped
  `namespace X;` prefixes the whole file);
- classes, structs, interfaces, enums and records are `class`; methods, constructors,
  destructors, operators, properties and indexers are `method` (a property is its
  accessors), delegates `class`, local functions `function`; fields, events and enum
  members are not symbols;
- `start_line` is the line of the name (past `[Attribute]` lists), the signature
  starts past them, the doc is the first line of the `///` block's text (XML tags
  dropped);
- a method carrying `[Fact]`, `[Theory]`, `[Test]`, `[TestCase]`, `[TestCaseSource]`,
  `[TestMethod]` or `[DataTestMethod]` is a test;
- imports are the `using` directives (`using A.B;`, `using static A.B.C;`,
  `using X = A.B;`), resolved to the first `.cs` file of a directory whose path ends
  with the namespace's segments (`A/B/`, or `B/` under a project named `A`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Final

from tree_sitter import Node

from repoctx.extract.declarations import (
    ancestors,
    dotted_suffix_parts,
    first_in_directory,
    first_row_past,
    header_from,
    scan_imports,
    start_past,
    with_first_branches,
)
from repoctx.extract.grammar import installed, load
from repoctx.extract.language import Files, Import, Language
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, Symbol, bounded
from repoctx.extract.treewalk import Rule, Spec, symbols, text_of

_GRAMMAR: Final = "tree_sitter_c_sharp"
_ATTRIBUTES: Final = frozenset({"attribute_list", "comment"})
_ATTRIBUTES_AND_MODIFIERS: Final = _ATTRIBUTES | {"modifier"}
_TEST_ATTRIBUTES: Final = frozenset({"Fact", "Theory", "Test", "TestCase", "TestCaseSource",
                                     "TestMethod", "DataTestMethod"})
_USING = re.compile(
    r"^[ \t]*(?:global[ \t]+)?using[ \t]+(?:static[ \t]+)?(?:\w+[ \t]*=[ \t]*)?([\w.]+)[ \t]*;",
    re.M)
_TEST_FILE = re.compile(r".+Tests?\.cs\Z")
_XML_TAG = re.compile(r"<[^>]*>")
_KEYWORDS: Final = frozenset({"this", "base", "var", "nameof", "typeof"})

_REFS: Final = """
(invocation_expression function: (identifier) @ref)
(invocation_expression function: (member_access_expression name: (identifier) @ref))
(object_creation_expression type: (identifier) @ref)
(base_list (identifier) @ref)
(attribute name: (identifier) @ref)
(parameter type: (identifier) @ref)
"""


def _start(node: Node) -> int:
    return first_row_past(node, _ATTRIBUTES_AND_MODIFIERS)


def _signature(node: Node, source: bytes) -> str:
    return header_from(source, start_past(node, _ATTRIBUTES), node,
                       ("body", "accessors", "value"))


def _attribute_names(node: Node) -> set[str]:
    names = set()
    for child in node.children:
        if child.type == "attribute_list":
            for attribute in child.named_children:
                name = text_of(attribute.child_by_field_name("name"))
                names.add(name.rpartition(".")[2].removesuffix("Attribute"))
    return names


def _is_test(node: Node, source: bytes, path: str) -> bool:
    return bool(_attribute_names(node) & _TEST_ATTRIBUTES)


def _operator_name(node: Node, source: bytes) -> str | None:
    operator = node.child_by_field_name("operator")
    return f"operator {text_of(operator)}" if operator is not None else None


def _module(path: str, source: bytes, root: Node) -> str:
    for child in root.children:
        if child.type == "file_scoped_namespace_declaration":
            return text_of(child.child_by_field_name("name"))
    return ""


_TYPE = Rule(CLASS, signature=_signature, start=_start)
_MEMBER = Rule(METHOD, signature=_signature, start=_start, test=_is_test)

_SPEC: Final = Spec(
    grammar=lambda path: load(_GRAMMAR),
    rules={
        "namespace_declaration": Rule(""),
        "class_declaration": _TYPE, "struct_declaration": _TYPE,
        "interface_declaration": _TYPE, "enum_declaration": _TYPE,
        "record_declaration": _TYPE, "delegate_declaration": _TYPE,
        "method_declaration": _MEMBER, "constructor_declaration": _MEMBER,
        "destructor_declaration": Rule(METHOD, name=lambda node, source: "~" + text_of(
            node.child_by_field_name("name")), signature=_signature, start=_start),
        "operator_declaration": Rule(METHOD, name=_operator_name, signature=_signature,
                                     start=_start),
        "property_declaration": _MEMBER,
        "indexer_declaration": Rule(METHOD, name=lambda node, source: "this",
                                    signature=_signature, start=_start),
        "local_function_statement": Rule(FUNCTION, signature=_signature, start=_start),
    },
    refs=_REFS,
    module=_module,
    keywords=_KEYWORDS,
    before=frozenset({"attribute_list"}),
)


def extract_csharp(path: str, text: str) -> tuple[Symbol, ...]:
    """The types and members of C# `text` (the contents of `path`), in source order."""
    found = symbols(_SPEC, path, text)
    if "#if" in text:
        found = with_first_branches(_SPEC, _GRAMMAR, path, text, found)
    if "///" not in text:
        return found
    lines = text.splitlines()
    return tuple(replace(symbol, doc=_xml_doc(lines, symbol.start_line - 2))
                 if symbol.doc.startswith("<") else symbol for symbol in found)


def _xml_doc(lines: list[str], row: int) -> str:
    """The first line of text in the `///` block above 0-based `row` (attribute lines
    skipped), XML tags dropped: `<summary>` on its own line is not the doc."""
    while row >= 0 and lines[row].lstrip().startswith("["):
        row -= 1
    block: list[str] = []
    while row >= 0 and lines[row].lstrip().startswith("///"):
        block.append(lines[row].lstrip()[3:])
        row -= 1
    for line in reversed(block):
        plain = " ".join(_XML_TAG.sub(" ", line).split())
        if plain:
            return bounded(plain)
    return ""


def csharp_imports(path: str, text: str) -> tuple[Import, ...]:
    """The namespaces of `text`'s `using` directives, in source order."""
    return scan_imports(_USING, text)


def resolve_csharp(importer: str, specifier: str, files: Files) -> str | None:
    """The first `.cs` file of a directory spelling the namespace: `A.B` is looked for
    as `A/B/`, `A.B/` and then `B/` (a project folder named after the root namespace)
    under each directory holding the importer, nearest first."""
    segments = specifier.split(".")
    shapes = ["/".join(segments), specifier]
    shapes += ["/".join(segments[start:]) for start in range(1, len(segments))]
    for directory in ancestors(importer):
        base = f"{directory}/" if directory else ""
        for shape in dict.fromkeys(shapes):
            found = first_in_directory(files, base + shape, (".cs",))
            if found is not None:
                return found
    return None


def is_csharp_test_path(path: str) -> bool:
    """True for `*Test.cs` / `*Tests.cs`, or a file in a `*.Tests` / `*.Test` project."""
    parts = path.replace("\\", "/").split("/")
    if _TEST_FILE.match(parts[-1]):
        return True
    return any(part.endswith((".Tests", ".Test", ".UnitTests")) for part in parts[:-1])


LANGUAGE: Final = Language(
    name="csharp", suffixes=(".cs",), grammar="tree-sitter-c-sharp",
    available=lambda: installed(_GRAMMAR), symbols=extract_csharp, imports=csharp_imports,
    resolve=resolve_csharp, is_test_path=is_csharp_test_path,
    qualname_parts=dotted_suffix_parts,
)
"""C# on the language seam."""
