"""extract/languages/cfamily — what C and C++ share: definitions, includes and test files.

Invariants (beyond `treewalk`'s):
- definitions are function bodies (`function`, or `method` inside a class body or
  defined out of class as `Class::name`), struct/union/enum/class bodies with a name,
  typedefs and `using X = …` aliases (all `class`), `#define`s (`variable`, or
  `function` for a macro with parameters; wherever written, a macro is unscoped:
  `NAME`, never `f::NAME`) and file- or namespace-scope variables
  (`variable`; `extern` declarations and prototypes are not definitions; a declaration
  of several names yields its first); a "function" named by a statement keyword
  (`MACRO if (c) { … }` misread) is none, and in `VIS API name(void) { … }` the
  name is `name` (not a variable `API`); variables inside `extern "C" { … }` are
  defined even when its brace opens under `#ifdef __cplusplus`, as are those in a
  named or anonymous namespace;
- C++ names join namespaces and classes with `::` (`ns::Class::method`); C names are
  bare; `.h` headers are read with the C++ grammar (as ctags does: a header may hold
  either language);
- `start_line` is the line of the declared name (a return type on the line above is
  not the start), the doc is the comment block right above (`/** … */`, `///`, `//`);
- a gtest `TEST(Suite, Name)` / `TEST_F` / `TEST_P` body is the test `Suite::Name`;
- includes are every `#include "x"` and `#include <x>`, resolved relative to the
  includer first (quoted form only), then under `include/` and `src/` of the includer's
  directories and the repository root.
"""

from __future__ import annotations

import posixpath
import re
from typing import Final

from tree_sitter import Node

from repoctx.extract.declarations import ancestors, name_row, with_first_branches
from repoctx.extract.grammar import load
from repoctx.extract.language import Files, Import, first_existing
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, VARIABLE, Symbol
from repoctx.extract.treewalk import Rule, Spec, symbols, text_of

C_GRAMMAR: Final = "tree_sitter_c"
CPP_GRAMMAR: Final = "tree_sitter_cpp"
_NAMES: Final = frozenset({"identifier", "field_identifier", "type_identifier",
                           "destructor_name", "operator_name", "qualified_identifier",
                           "template_function", "operator_cast", "primitive_type"})
_TEST_MACROS: Final = frozenset({"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P"})
_SCOPES: Final = frozenset({"namespace_definition", "class_specifier", "struct_specifier",
                            "union_specifier"})
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">\n]+)[">]', re.M)
_TEST_FILE = re.compile(r"(?:test_.+|.+_(?:unit)?tests?|.+Tests?)\.(?:c|cc|cpp|cxx)\Z")
_KEYWORDS: Final = frozenset({"sizeof", "defined", "return", "if", "while", "for", "switch"})
# Statement keywords no function can be named: `MACRO if (c) { … }` (a statement
# after an unexpanded macro) parses as a function `if` of return type `MACRO`.
_STATEMENTS: Final = frozenset({"if", "else", "while", "for", "switch", "do", "return",
                                "case", "goto", "sizeof"})

_C_REFS: Final = """
(call_expression function: (identifier) @ref)
(call_expression function: (field_expression field: (field_identifier) @ref))
(type_identifier) @ref
"""
_CPP_REFS: Final = _C_REFS + """
(call_expression function: (qualified_identifier name: (identifier) @ref))
(base_class_clause (type_identifier) @ref)
"""


def _declarator(node: Node) -> tuple[Node | None, bool]:
    """The name node at the bottom of `node`'s declarator chain, and whether a
    function declarator lies on the way (a function, not a variable)."""
    current = node.child_by_field_name("declarator")
    if (node.type == "function_definition" and current is not None
            and current.type == "parenthesized_declarator"):
        # `VIS API name(void) { … }`: the macros end a declaration of their own and
        # `name` is read as the return type of a parenthesized declarator `(void)`.
        misread = node.child_by_field_name("type")
        if misread is not None and misread.type == "type_identifier":
            return misread, True
    function = False
    while current is not None:
        if current.type == "qualified_identifier" and any(
                child.is_missing for child in current.children):
            # `API name(…)` in C++: error recovery reads `API::name` with a MISSING `::`
            return current.child_by_field_name("name"), function
        if current.type in _NAMES:
            return current, function
        if current.type == "function_declarator":
            function = True
            misplaced = _name_in_error(current)
            if misplaced is not None:
                return misplaced, function
        inner = current.child_by_field_name("declarator")
        if inner is None and current.named_child_count:
            inner = current.named_child(0)
        current = inner
    return None, function


def _name_in_error(declarator: Node) -> Node | None:
    """The real name of `API Type name(…)`: tree-sitter reads `Type` as the name and
    leaves `name` in an ERROR node just before the parameters."""
    for child in declarator.children:
        if child.type == "ERROR" and child.named_child_count == 1:
            only = child.named_child(0)
            if only is not None and only.type == "identifier":
                return only
    return None


def _name_segments(name: Node) -> list[str]:
    """`a::B<T>::f` as `["a", "B", "f"]`; an operator reads `operator =` (ctags' way)."""
    segments = []
    for part in text_of(name).split("::"):
        part = part.strip()
        if part.startswith("operator") and not (part[8:9].isalnum() or part[8:9] == "_"):
            segments.append(" ".join(("operator", *part[8:].split())))
        elif part:
            segments.append(part.partition("<")[0].strip())
    return segments


def _function_name(node: Node, source: bytes) -> str | None:
    name, function = _declarator(node)
    if name is None or not function or node.child_by_field_name("body") is None:
        return None  # `= default` / `= delete`: no body, not a definition
    if text_of(name) in _TEST_MACROS:
        return _test_parts(node)[-1] if _test_parts(node) else None
    segments = _name_segments(name)
    if not segments or segments[-1] in _STATEMENTS:
        return None
    return segments[-1]


def _test_parts(node: Node) -> tuple[str, ...]:
    """`("Suite", "Name")` of a gtest `TEST(Suite, Name)` body, else ()."""
    declarator = node.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator else None
    if parameters is None:
        return ()
    names = [text_of(p).strip() for p in parameters.named_children]
    return tuple(names[:2]) if len(names) >= 2 and all(names[:2]) else ()


def _enclosing(node: Node) -> list[str]:
    """Names of the namespaces and classes around `node`, outermost first."""
    names: list[str] = []
    parent = node.parent
    while parent is not None:
        if parent.type in _SCOPES:
            name = parent.child_by_field_name("name")
            if name is not None:
                names.extend(reversed(_name_segments(name)))
        parent = parent.parent
    return names[::-1]


def _function_parts(node: Node, source: bytes) -> tuple[str, ...] | None:
    name, _ = _declarator(node)
    if name is None:
        return None
    if text_of(name) in _TEST_MACROS:
        parts = _test_parts(node)
        return (*_enclosing(node), *parts) if parts else None
    if name.type != "qualified_identifier":
        return None  # nested the usual way
    return (*_enclosing(node), *_name_segments(name))


def _function_kind(node: Node, source: bytes, outer: str | None) -> str | None:
    name, _ = _declarator(node)
    if name is not None and name.type == "qualified_identifier":
        return METHOD
    return FUNCTION


def _is_test(node: Node, source: bytes, path: str) -> bool:
    name, _ = _declarator(node)
    return name is not None and text_of(name) in _TEST_MACROS


def _declarator_row(node: Node) -> int:
    name, _ = _declarator(node)
    return (name if name is not None else node).start_point[0]


def _typedef_name(node: Node, source: bytes) -> str | None:
    name, _ = _declarator(node)
    return text_of(name) if name is not None else None


def _variable_name(node: Node, source: bytes) -> str | None:
    name, function = _declarator(node)
    if name is None or function or name.type == "qualified_identifier":
        return None
    return text_of(name)


# Where a declaration is file-level: `extern "C" int x;` (a linkage_specification
# parent with no braces) only declares, but `extern "C" { int x; }` defines.
_FILE_LEVEL: Final = frozenset({"translation_unit", "preproc_if", "preproc_ifdef",
                                 "preproc_else", "preproc_elif", "preproc_elifdef",
                                 "declaration_list", "linkage_specification",
                                 "namespace_definition", "ERROR"})


def _variable_kind(node: Node, source: bytes, outer: str | None) -> str | None:
    if outer not in (None, ""):
        return None  # a local, or a member
    parent = node.parent
    if parent is not None and parent.type == "linkage_specification":
        return None  # `extern "C" int x;` declares
    while parent is not None and parent.type != "translation_unit":
        if parent.type not in _FILE_LEVEL:
            return None  # in a body tree-sitter could not tie to its function header
        if parent.type == "declaration_list" and (parent.parent is None or parent.parent.type
                                                  not in ("namespace_definition",
                                                          "linkage_specification")):
            return None
        parent = parent.parent
    for child in node.children:
        if child.type == "storage_class_specifier" and text_of(child) == "extern":
            return None
    last, after = node.children[-1] if node.children else None, node.next_named_sibling
    if (last is not None and last.is_missing and after is not None
            and after.type == "function_definition"
            and after.start_point[0] == node.end_point[0]):
        return None  # the macros before a function's name (see `_declarator`)
    return VARIABLE


def _tag_kind(node: Node, source: bytes, outer: str | None) -> str | None:
    if node.child_by_field_name("body") is None:
        return None  # a forward declaration or a use (`struct s x;`)
    return CLASS


def _macro_kind(node: Node, source: bytes, outer: str | None) -> str | None:
    return FUNCTION if node.type == "preproc_function_def" else VARIABLE


def _macro_parts(node: Node, source: bytes) -> tuple[str, ...] | None:
    """A macro's own name: the preprocessor knows no scope, so a `#define` inside a
    function body, class or namespace is still the bare `NAME` (as ctags files it)."""
    name = node.child_by_field_name("name")
    return (text_of(name),) if name is not None and text_of(name) else None


def _macro_signature(node: Node, source: bytes) -> str:
    first = text_of(node).split("\n", 1)[0].rstrip("\\").strip()
    return " ".join(first.split())[:200]


_FUNCTION = Rule(_function_kind, name=_function_name, qualify=_function_parts,
                 start=_declarator_row, test=_is_test)
_TAG = Rule(_tag_kind, start=name_row)
_TYPEDEF = Rule(CLASS, name=_typedef_name, header_end=(), start=_declarator_row,
                nests=False)
_VARIABLE = Rule(_variable_kind, name=_variable_name, header_end=("value",),
                 start=_declarator_row, nests=False)
_MACRO = Rule(_macro_kind, header_end=(), signature=_macro_signature, nests=False,
              start=name_row, qualify=_macro_parts)

_C_RULES: Final = {
    "function_definition": _FUNCTION, "struct_specifier": _TAG, "union_specifier": _TAG,
    "enum_specifier": _TAG, "type_definition": _TYPEDEF, "declaration": _VARIABLE,
    "preproc_def": _MACRO, "preproc_function_def": _MACRO,
}
_CPP_RULES: Final = {
    **_C_RULES, "class_specifier": _TAG,
    "alias_declaration": Rule(CLASS, header_end=(), start=name_row, nests=False),
    "namespace_definition": Rule("", name=lambda node, source: "::".join(
        _name_segments(node.child_by_field_name("name")))
        if node.child_by_field_name("name") is not None else None),
}

CPP_SPEC: Final = Spec(
    grammar=lambda path: load(CPP_GRAMMAR), rules=_CPP_RULES, refs=_CPP_REFS,
    module=lambda path, source, root: "", separator="::", keywords=_KEYWORDS,
    wrappers=frozenset({"template_declaration", "type_definition", "declaration"}),
)
C_SPEC: Final = Spec(
    grammar=lambda path: load(C_GRAMMAR), rules=_C_RULES, refs=_C_REFS,
    module=lambda path, source, root: "", separator="::", keywords=_KEYWORDS,
    wrappers=frozenset({"type_definition", "declaration"}),
)


def extract_c(path: str, text: str) -> tuple[Symbol, ...]:
    """The definitions of C `text` (a `.h` header is read as C++, see the module doc)."""
    if path.lower().endswith((".h", ".hh", ".hpp", ".hxx")):
        return _recovering(CPP_SPEC, CPP_GRAMMAR, path, text)
    return _recovering(C_SPEC, C_GRAMMAR, path, text)


def extract_cpp(path: str, text: str) -> tuple[Symbol, ...]:
    """The definitions of C++ `text`, qualified `ns::Class::name`."""
    return _recovering(CPP_SPEC, CPP_GRAMMAR, path, text)


def _recovering(spec: Spec, grammar: str, path: str, text: str) -> tuple[Symbol, ...]:
    """`symbols`, re-read with first branches when `#else`/`#elif` branches break the
    parse (`with_first_branches`), keeping of the full parse's own finds all but its
    "variables" inside a function of the first-branch parse: locals of a body the broken
    parse could not tie to its header."""
    found = symbols(spec, path, text)
    if "#el" not in text:
        return found
    return with_first_branches(spec, grammar, path, text, found, _not_a_body_local)


def _not_a_body_local(symbol: Symbol, kept: tuple[Symbol, ...], skipped: set[int]) -> bool:
    if symbol.start_line in skipped or symbol.kind != VARIABLE or symbol.signature.startswith("#"):
        return True
    return not any(s.start_line <= symbol.start_line <= s.end_line
                   for s in kept if s.kind in (FUNCTION, METHOD))


def include_imports(path: str, text: str) -> tuple[Import, ...]:
    """`#include` targets as written: `"util.h"` as `util.h`, `<a/b.h>` as `<a/b.h>`."""
    found = []
    line, counted = 1, 0
    for match in _INCLUDE.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        target = match.group(2).strip()
        found.append(Import(target if match.group(1) == '"' else f"<{target}>", line))
    return tuple(found)


def resolve_include(importer: str, specifier: str, files: Files) -> str | None:
    """The file an include names: a quoted one relative to the includer first, then
    (both forms) under `include/`, `src/` or directly in each directory holding the
    includer, nearest first."""
    system = specifier.startswith("<")
    target = specifier.strip("<>")
    candidates = [] if system else [posixpath.join(posixpath.dirname(importer), target)]
    for directory in ancestors(importer):
        base = f"{directory}/" if directory else ""
        candidates += [f"{base}include/{target}", f"{base}src/{target}", base + target]
    return first_existing(files, candidates)


def is_c_test_path(path: str) -> bool:
    """True for C/C++ test files by name: `test_*.c`, `*_test.cc`, `*_unittest.cpp`,
    `*_tests.c`, `*Test.cpp` (any of .c/.cc/.cpp/.cxx)."""
    return _TEST_FILE.match(path.replace("\\", "/").rsplit("/", 1)[-1]) is not None


def qualname_parts(path: str, fq_name: str) -> tuple[str, ...] | None:
    """C and C++ names are not prefixed by a module: the whole name, split on `::`."""
    return tuple(part for part in fq_name.split("::") if part)

