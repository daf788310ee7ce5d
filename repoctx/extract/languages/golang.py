"""extract/languages/golang — Go symbols, imports and tests from tree-sitter-go.

Invariants: pure; never raises on a `str`. Names are `pkg.Type.Method` where `pkg` is
the package's directory (`internal/store`; files at the repository root have no
prefix): functions, methods (`Type.Method` whatever the receiver's pointer-ness or
type parameters), types (struct, interface and others are `class`; interface method
specs are its `method`s), package-level `const` / `var` (first name of a spec). A test
is a `TestX` / `BenchmarkX` / `FuzzX` / `ExampleX` function in a `_test.go` file.
Imports resolve inside the module `go.mod` declares: an import path under it names the
package directory, answered by its first non-test `.go` file.
"""

from __future__ import annotations

import posixpath
import re
from typing import Final

from tree_sitter import Language as Grammar
from tree_sitter import Node

from repoctx.extract import treewalk
from repoctx.extract.declarations import ancestors
from repoctx.extract.grammar import encode, installed, load, parse
from repoctx.extract.language import Files, Import, Language
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, VARIABLE, bounded
from repoctx.extract.treewalk import Rule, Spec, text_of

_TEST_FUNCTION = re.compile(r"(?:Test|Benchmark|Fuzz|Example)(?:[A-Z0-9_].*)?\Z")
_MODULE_LINE = re.compile(r"^\s*module\s+\"?([^\s\"]+)", re.M)
_KEYWORDS: Final = frozenset({
    "bool", "byte", "complex64", "complex128", "error", "float32", "float64", "int",
    "int8", "int16", "int32", "int64", "rune", "string", "uint", "uint8", "uint16",
    "uint32", "uint64", "uintptr", "any", "comparable", "append", "cap", "close",
    "copy", "delete", "len", "make", "new", "panic", "print", "println", "recover",
    "min", "max", "clear",
})
_REFS: Final = """
(call_expression function: (identifier) @ref)
(call_expression function: (selector_expression field: (field_identifier) @ref))
(type_identifier) @ref
"""


def _grammar(path: str) -> Grammar | None:
    return load("tree_sitter_go")


def module_of(path: str) -> str:
    """The package prefix of the Go file `path`: its directory (`''` at the root)."""
    return posixpath.dirname(path.replace("\\", "/"))


def _receiver_type(node: Node, source: bytes) -> tuple[str, ...] | None:
    receiver = node.child_by_field_name("receiver")
    name = node.child_by_field_name("name")
    if receiver is None or name is None:
        return None
    found = re.findall(r"[A-Za-z_]\w*", text_of(receiver))
    # `(s *Store[T])` -> Store: the last identifier before any type arguments
    head = text_of(receiver).split("[", 1)[0]
    words = re.findall(r"[A-Za-z_]\w*", head) or found
    return (words[-1], text_of(name)) if words else None


def _package_level(node: Node, source: bytes, outer: str | None) -> str | None:
    return VARIABLE if outer is None and _at_top(node) else None


def _at_top(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type in ("const_declaration", "var_declaration",
                                                  "var_spec_list", "const_spec_list"):
        parent = parent.parent
    return parent is not None and parent.type == "source_file"


def _type_signature(node: Node, source: bytes) -> str:
    return bounded("type " + treewalk.header(node, source, ()).split("{")[0])


def _spec_signature(node: Node, source: bytes) -> str:
    keyword = "const" if node.type == "const_spec" else "var"
    return bounded(f"{keyword} {treewalk.header(node, source, ())}")


def _is_test(node: Node, source: bytes, path: str) -> bool:
    name = node.child_by_field_name("name")
    return path.endswith("_test.go") and _TEST_FUNCTION.match(text_of(name)) is not None


SPEC: Final = Spec(
    grammar=_grammar,
    rules={
        "function_declaration": Rule(FUNCTION, test=_is_test),
        "method_declaration": Rule(METHOD, qualify=_receiver_type),
        "type_spec": Rule(CLASS, header_end=(), signature=_type_signature),
        "type_alias": Rule(CLASS, header_end=(), signature=_type_signature),
        "method_elem": Rule(FUNCTION, header_end=()),
        "const_spec": Rule(_package_level, signature=_spec_signature),
        "var_spec": Rule(_package_level, signature=_spec_signature),
    },
    refs=_REFS,
    module=lambda path, source, root: module_of(path),
    keywords=_KEYWORDS,
    wrappers=frozenset({"type_declaration", "const_declaration", "var_declaration"}),
)


def extract_go(path: str, text: str) -> tuple:
    """The functions, methods, types and package-level constants/variables of Go `text`."""
    return treewalk.symbols(SPEC, path, text)


def go_imports(path: str, text: str) -> tuple[Import, ...]:
    """The import paths of Go `text`, with their lines."""
    language = _grammar(path)
    if language is None:
        return ()
    root = parse(language, encode(text))
    out = []
    for declaration in root.children:
        if declaration.type != "import_declaration":
            continue
        specs = [c for c in declaration.named_children if c.type == "import_spec"]
        for group in declaration.named_children:
            if group.type == "import_spec_list":
                specs += [c for c in group.named_children if c.type == "import_spec"]
        for spec in specs:
            literal = text_of(spec.child_by_field_name("path")).strip("\"`")
            if literal:
                out.append(Import(literal, spec.start_point[0] + 1))
    return tuple(sorted(out, key=lambda item: item.line))


def resolve_go(importer: str, specifier: str, files: Files) -> str | None:
    """The first non-test `.go` file of the package directory `specifier` names, when it
    lies inside the module of the nearest `go.mod` above `importer`; else None."""
    for directory in ancestors(importer):
        gomod = posixpath.join(directory, "go.mod")
        if files.exists(gomod):
            break
    else:
        return None
    match = _MODULE_LINE.search(files.read(gomod) or "")
    if match is None:
        return None
    module = match.group(1)
    if specifier != module and not specifier.startswith(module + "/"):
        return None
    rest = specifier[len(module):].lstrip("/")
    package = posixpath.join(directory, rest)
    sources = sorted(p for p in files.listdir(package)
                     if p.endswith(".go") and not p.endswith("_test.go"))
    return sources[0] if sources else None


def is_go_test_path(path: str) -> bool:
    """True for a Go test file: `*_test.go`."""
    return path.endswith("_test.go")


LANGUAGE: Final = Language(
    name="go", suffixes=(".go",), grammar="tree-sitter-go",
    available=lambda: installed("tree_sitter_go"), symbols=extract_go, imports=go_imports,
    resolve=resolve_go, is_test_path=is_go_test_path, module=module_of,
)
"""Go on the language seam."""
