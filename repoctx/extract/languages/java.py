"""extract/languages/java — Java symbols, imports and JUnit tests from tree-sitter-java.

Invariants (beyond `treewalk`'s):
- names are qualified from the `package` declaration: `com.x.Outer.Inner.method`;
  classes, interfaces, enums, records and `@interface` types are `class`; methods and
  constructors (compact ones too) are `method` (inside an anonymous class or a method,
  qualified by the enclosing method); fields and enum constants are not symbols;
- `start_line` is the line of the name (past annotations), the signature starts past
  annotations and ends before the body, the doc is the Javadoc's first line;
- a method annotated `@Test`, `@ParameterizedTest`, `@RepeatedTest`, `@TestFactory`
  or `@TestTemplate` is a test, and so is a JUnit 3 `test…` method in a test file;
- imports are the `import` declarations (`a.b.C`, `a.b.*`, static `a.b.C.m`), resolved
  to `a/b/C.java` under the importer's source root (its directory less its package).
"""

from __future__ import annotations

import posixpath
import re
from typing import Final

from tree_sitter import Node

from repoctx.extract.declarations import (
    dotted_suffix_parts,
    first_in_directory,
    header_from,
    name_row,
    scan_imports,
    start_past,
)
from repoctx.extract.grammar import installed, load
from repoctx.extract.language import Files, Import, Language, first_existing
from repoctx.extract.symbol import CLASS, METHOD, Symbol
from repoctx.extract.treewalk import Rule, Spec, symbols, text_of

_GRAMMAR: Final = "tree_sitter_java"
_ANNOTATIONS: Final = frozenset({"marker_annotation", "annotation", "line_comment",
                                 "block_comment"})
_TEST_ANNOTATIONS: Final = frozenset({"Test", "ParameterizedTest", "RepeatedTest",
                                      "TestFactory", "TestTemplate"})
_TEST_FILE = re.compile(r"(?:.+Tests?|Test[A-Z0-9_].*|.+IT|.+TestCase)\.java\Z")
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+(?:\.\*)?)[ \t]*;", re.M)
_PACKAGE = re.compile(r"^[ \t]*package[ \t]+([\w.]+)[ \t]*;", re.M)
_KEYWORDS: Final = frozenset({"this", "super", "var"})
_MAVEN_ROOT = re.compile(r"((?:.*/)?)src/\w+/java\Z")

_REFS: Final = """
(method_invocation name: (identifier) @ref)
(type_identifier) @ref
(marker_annotation name: (identifier) @ref)
(annotation name: (identifier) @ref)
"""


def _signature(node: Node, source: bytes) -> str:
    return header_from(source, start_past(node, _ANNOTATIONS), node, ("body",))


def _annotations(node: Node) -> set[str]:
    names: set[str] = set()
    for child in node.children:
        if child.type == "modifiers":
            for inner in child.children:
                if inner.type in ("marker_annotation", "annotation"):
                    names.add(text_of(inner.child_by_field_name("name")).rpartition(".")[2])
    return names


def _is_test(node: Node, source: bytes, path: str) -> bool:
    if _annotations(node) & _TEST_ANNOTATIONS:
        return True
    name = text_of(node.child_by_field_name("name"))
    return name.startswith("test") and is_java_test_path(path)


def _module(path: str, source: bytes, root: Node) -> str:
    for child in root.children:
        if child.type == "package_declaration":
            for inner in child.named_children:
                if inner.type in ("scoped_identifier", "identifier"):
                    return text_of(inner)
    return ""


_TYPE = Rule(CLASS, signature=_signature, start=name_row)
_METHOD = Rule(METHOD, signature=_signature, start=name_row, test=_is_test)

_SPEC: Final = Spec(
    grammar=lambda path: load(_GRAMMAR),
    rules={
        "class_declaration": _TYPE, "interface_declaration": _TYPE,
        "enum_declaration": _TYPE, "record_declaration": _TYPE,
        "annotation_type_declaration": _TYPE,
        "method_declaration": _METHOD, "constructor_declaration": _METHOD,
        "compact_constructor_declaration": _METHOD,
        "annotation_type_element_declaration": Rule(METHOD, signature=_signature,
                                                    start=name_row),
    },
    refs=_REFS,
    module=_module,
    keywords=_KEYWORDS,
    comments=frozenset({"block_comment"}),  # Javadoc, not `// <editor-fold>` markers
)


def extract_java(path: str, text: str) -> tuple[Symbol, ...]:
    """The types and methods of Java `text` (the contents of `path`), in source order."""
    return symbols(_SPEC, path, text)


def java_imports(path: str, text: str) -> tuple[Import, ...]:
    """The `import` declarations of `text`: `a.b.C`, `a.b.*`, static `a.b.C.member`."""
    return scan_imports(_IMPORT, text)


def _source_root(importer: str, files: Files) -> str | None:
    """The importer's directory less the path its `package` spells, or None."""
    directory = posixpath.dirname(importer)
    text = files.read(importer)
    match = _PACKAGE.search(text) if text else None
    if match is None:
        return directory
    package = match.group(1).replace(".", "/")
    if directory == package:
        return ""
    if directory.endswith("/" + package):
        return directory[: -len(package) - 1]
    return None


def resolve_java(importer: str, specifier: str, files: Files) -> str | None:
    """The file an import names: `a.b.C` -> `<root>/a/b/C.java` (a static member or a
    nested class falls back to the outer class's file), `a.b.*` -> the first Java file
    of `<root>/a/b/` (or the class `a/b.java` for a static `*`). The roots are the
    importer's own source root, its module's `src/main/java` and `src/test/java` (Maven
    and Gradle source sets), then those at the root, `src` and ''."""
    own = _source_root(importer, files)
    roots = [own]
    layout = _MAVEN_ROOT.match(own or "")
    if layout is not None:  # a test imports main code: the module's sibling source sets
        roots += [f"{layout.group(1)}src/main/java", f"{layout.group(1)}src/test/java"]
    roots += ["src/main/java", "src/test/java", "src", ""]
    segments = specifier.split(".")
    wildcard = segments[-1] == "*"
    if wildcard:
        segments.pop()
    for root in dict.fromkeys(root for root in roots if root is not None):
        base = f"{root}/" if root else ""
        if wildcard:
            found = first_in_directory(files, base + "/".join(segments), (".java",))
            if found is not None:
                return found
        candidates = [base + "/".join(segments[:end]) + ".java"
                      for end in range(len(segments), 0, -1)]
        found = first_existing(files, candidates)
        if found is not None:
            return found
    return None


def is_java_test_path(path: str) -> bool:
    """True for JUnit's conventions: under `src/test/`, or named `*Test.java`,
    `*Tests.java`, `Test*.java`, `*IT.java` or `*TestCase.java`."""
    normal = path.replace("\\", "/")
    if "src/test/" in f"/{normal}":
        return True
    return _TEST_FILE.match(normal.rsplit("/", 1)[-1]) is not None


LANGUAGE: Final = Language(
    name="java", suffixes=(".java",), grammar="tree-sitter-java",
    available=lambda: installed(_GRAMMAR), symbols=extract_java, imports=java_imports,
    resolve=resolve_java, is_test_path=is_java_test_path, qualname_parts=dotted_suffix_parts,
)
"""Java on the language seam."""
