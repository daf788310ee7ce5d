"""extract/languages/javascript — JavaScript (+JSX) symbols, imports and tests from
tree-sitter-javascript.

Invariants: pure; never raises on a `str`. Names are the module path (the file's path
without its extension, `src/ui/button`) joined to `Class.method` with `.`: classes,
functions and generators, methods (getters/setters share their name), class fields
holding a function, `const`/`let`/`var` bindings of a function (at any depth, nested
in the function declaring them) and other module-level bindings (`variable`). In a
test file (`*.test.js`, `*.spec.js`, `__tests__/`) each `describe(…)` / `it(…)` /
`test(…)` call is a test `function` named after its title (non-word characters become
`_`), nested as written, owning the references in its body. References are calls,
constructions, decorators and a binding's value naming another definition (`const
stringType = ZodString.create` refers to `create`: calling the binding runs it); a
member call on a receiver whose class the file says is spelled in `Symbol.targets`
(`extract/languages/js_receivers`). The functions here are shared with
`extract/languages/typescript`.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Final

from tree_sitter import Language as Grammar
from tree_sitter import Node, Query, QueryCursor

from repoctx.extract import treewalk
from repoctx.extract.grammar import encode, installed, load, parse
from repoctx.extract.language import Files, Import, Language, first_existing
from repoctx.extract.languages.js_packages import resolve_own_package
from repoctx.extract.languages.js_receivers import receiver_targets
from repoctx.extract.symbol import CLASS, FUNCTION, VARIABLE, Symbol, bounded
from repoctx.extract.treewalk import Rule, Spec, text_of

SOURCE_SUFFIXES: Final = (".ts", ".tsx", ".mts", ".cts", ".d.ts", ".js", ".jsx", ".mjs", ".cjs")
_TEST_FILE = re.compile(r".+\.(?:test|spec)\.[cm]?[jt]sx?\Z")
_TEST_CALLS: Final = ("describe", "it", "test", "suite", "context")
_FUNCTION_VALUES: Final = frozenset({
    "arrow_function", "function_expression", "function", "generator_function",
})
_DECLARATIONS: Final = frozenset({"lexical_declaration", "variable_declaration"})
_MODULE_LEVEL: Final = frozenset({"program", "export_statement", "statement_block"})
_WORD = re.compile(r"\W+")
KEYWORDS: Final = frozenset({
    "require", "describe", "it", "test", "expect", "beforeEach", "afterEach", "beforeAll",
    "afterAll", "suite", "context", "String", "Number", "Boolean", "Object", "Array",
    "Promise", "Error", "console", "log", "then", "push", "map", "filter",
})
JS_REFS: Final = """
(call_expression function: (identifier) @ref)
(call_expression function: (member_expression property: (property_identifier) @ref))
(new_expression constructor: (identifier) @ref)
(new_expression constructor: (member_expression property: (property_identifier) @ref))
(decorator (identifier) @ref)
(decorator (call_expression function: (identifier) @ref))
(variable_declarator value: (identifier) @ref)
(variable_declarator value: (member_expression property: (property_identifier) @ref))
"""
JSX_REFS: Final = """
(jsx_opening_element name: (identifier) @ref)
(jsx_self_closing_element name: (identifier) @ref)
(jsx_opening_element name: (member_expression property: (property_identifier) @ref))
(jsx_self_closing_element name: (member_expression property: (property_identifier) @ref))
"""
_IMPORTS: Final = """
(import_statement source: (string (string_fragment) @spec))
(export_statement source: (string (string_fragment) @spec))
(call_expression function: (identifier) @fn
  arguments: (arguments . (string (string_fragment) @spec)))
(call_expression function: (import) arguments: (arguments . (string (string_fragment) @spec)))
"""


def module_of(path: str) -> str:
    """The module prefix of a JS/TS file: its path without the extension."""
    path = path.replace("\\", "/")
    for suffix in (".d.ts", ".d.mts", ".d.cts"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    stem, _ = posixpath.splitext(path)
    return stem


def is_js_test_path(path: str) -> bool:
    """True for a JS/TS test file: `*.test.*` / `*.spec.*`, or under `__tests__/`."""
    parts = path.replace("\\", "/").split("/")
    return _TEST_FILE.match(parts[-1]) is not None or "__tests__" in parts[:-1]


def _binding(node: Node, source: bytes, outer: str | None) -> str | None:
    """A `variable_declarator`: a function when it binds one, else a module-level
    variable; other bindings (locals, destructuring) declare nothing."""
    value = node.child_by_field_name("value")
    if value is not None and value.type in _FUNCTION_VALUES:
        return FUNCTION
    declaration = node.parent
    if declaration is None or declaration.type not in _DECLARATIONS:
        return None
    scope = declaration.parent
    at_module = scope is not None and (scope.type in ("program", "export_statement") or (
        scope.type == "statement_block" and scope.parent is not None
        and scope.parent.type == "internal_module"))
    name = node.child_by_field_name("name")
    return VARIABLE if at_module and name is not None and name.type == "identifier" else None


def _method(node: Node, source: bytes, outer: str | None) -> str | None:
    """A method of a class; an object literal's member is no definition."""
    return None if node.parent is not None and node.parent.type == "object" else FUNCTION


def _field(node: Node, source: bytes, outer: str | None) -> str | None:
    value = node.child_by_field_name("value")
    return FUNCTION if value is not None and value.type in _FUNCTION_VALUES else None


def _field_name(node: Node, source: bytes) -> str | None:
    name = node.child_by_field_name("property") or node.child_by_field_name("name")
    return text_of(name) or None


def _binding_signature(node: Node, source: bytes) -> str:
    declaration = node.parent
    keyword = ""
    if declaration is not None and declaration.type in _DECLARATIONS:
        keyword = text_of(declaration.children[0]) + " " if declaration.children else ""
    value = node.child_by_field_name("value")
    if value is not None and value.type in _FUNCTION_VALUES:
        return bounded(keyword + _field_signature(node, source))
    return bounded(keyword + treewalk.header(node, source, ()))


def _test_title(node: Node, source: bytes) -> str | None:
    """The title of a `describe("…", …)` call as a name, or None if not such a call."""
    function = node.child_by_field_name("function")
    callee = text_of(function).split(".")[0]
    arguments = node.child_by_field_name("arguments")
    if callee not in _TEST_CALLS or arguments is None or not arguments.named_children:
        return None
    title = arguments.named_children[0]
    if title.type not in ("string", "template_string"):
        return None
    words = _WORD.sub("_", text_of(title).strip("\"'`")).strip("_")
    return words or None


def _in_test_file(node: Node, source: bytes, path: str) -> bool:
    return True  # only the test-file spec has the rule


def _call_signature(node: Node, source: bytes) -> str:
    arguments = node.child_by_field_name("arguments")
    title = text_of(arguments.named_children[0]) if arguments and arguments.named_children else ""
    return bounded(f"{text_of(node.child_by_field_name('function'))}({title})")


def _field_signature(node: Node, source: bytes) -> str:
    value = node.child_by_field_name("value")
    if value is None:
        return treewalk.header(node, source, ())
    head = treewalk.header(value, source, ("body",)).removesuffix("=>").rstrip()
    return bounded(source[node.start_byte:value.start_byte].decode("utf-8", "replace") + head)


TEST_CALL_PATTERN: Final = (
    '((call_expression function: [(identifier) (member_expression object: (identifier))]'
    ' @callee) @def'
    ' (#match? @callee "^(describe|it|test|suite|context)(\\\\.|$)"))'
)
COMMON_RULES: Final = {
    "class_declaration": Rule(CLASS),
    "function_declaration": Rule(FUNCTION),
    "generator_function_declaration": Rule(FUNCTION),
    "method_definition": Rule(_method),
    "variable_declarator": Rule(_binding, signature=_binding_signature),
}
TEST_RULES: Final = {"call_expression": Rule(FUNCTION, name=_test_title, test=_in_test_file,
                                             signature=_call_signature)}
"""Rules added for test files only: `describe(…)` / `it(…)` calls."""
JS_RULES: Final = {**COMMON_RULES, "field_definition": Rule(
    _field, name=_field_name, signature=_field_signature)}
WRAPPERS: Final = frozenset({"export_statement", "lexical_declaration", "variable_declaration",
                             "expression_statement"})
BEFORE: Final = frozenset({"decorator"})


def _js_grammar(path: str) -> Grammar | None:
    return load("tree_sitter_javascript")


def specs(grammar, rules: dict[str, Rule], refs: str) -> tuple[Spec, Spec]:
    """The spec of a source file and the spec of a test file (with `TEST_RULES`)."""
    source = Spec(grammar=grammar, rules=rules, refs=refs,
                  module=lambda path, source, root: module_of(path), keywords=KEYWORDS,
                  wrappers=WRAPPERS, before=BEFORE, targets=receiver_targets)
    return source, replace(source, rules={**rules, **TEST_RULES},
                           patterns={"call_expression": TEST_CALL_PATTERN})


_HERITAGE: Final = """
(class_heritage (identifier) @ref)
(class_heritage (member_expression property: (property_identifier) @ref))
"""
SPEC, TEST_SPEC = specs(_js_grammar, JS_RULES, JS_REFS + JSX_REFS + _HERITAGE)


def extract_javascript(path: str, text: str) -> tuple[Symbol, ...]:
    """The classes, functions, methods and module bindings of JavaScript `text`."""
    return treewalk.symbols(TEST_SPEC if is_js_test_path(path) else SPEC, path, text)


_IMPORT_QUERIES: dict[int, Query] = {}


def read_imports(grammar: Grammar | None, text: str) -> tuple[Import, ...]:
    """`import … from "x"`, `export … from "x"`, `require("x")`, `import("x")` specifiers."""
    if grammar is None:
        return ()
    query = _IMPORT_QUERIES.get(id(grammar))
    if query is None:
        query = _IMPORT_QUERIES[id(grammar)] = Query(grammar, _IMPORTS)
    root = parse(grammar, encode(text))
    out = []
    for _, captures in QueryCursor(query).matches(root):
        spec = captures.get("spec", [])
        callee = captures.get("fn", [])
        if not spec or (callee and text_of(callee[0]) != "require"):
            continue
        out.append(Import(text_of(spec[0]), spec[0].start_point[0] + 1))
    return tuple(sorted(set(out), key=lambda item: (item.line, item.specifier)))


def javascript_imports(path: str, text: str) -> tuple[Import, ...]:
    """The import specifiers of JavaScript `text`, with their lines."""
    return read_imports(_js_grammar(path), text)


def resolve_relative(importer: str, specifier: str, files: Files) -> str | None:
    """The file an import names: a relative one (`./x`, `../x/y.js`) as written, with each
    source suffix, then `index` with each suffix (a `.js` written for a `.ts` source,
    TypeScript's ESM style, finds the `.ts`); a bare one only when it names the importer's
    own package (`js_packages`). Other packages resolve to None."""
    if not specifier.startswith(("./", "../")) and specifier not in (".", ".."):
        return resolve_own_package(importer, specifier, files, _spellings)
    base = posixpath.normpath(posixpath.join(posixpath.dirname(importer), specifier))
    return first_existing(files, _spellings(base))


def _spellings(base: str) -> list[str]:
    """The files a written module path may stand for, in the order they are tried."""
    stem, suffix = posixpath.splitext(base)
    candidates = [base] if suffix else []
    if suffix in (".js", ".jsx", ".mjs", ".cjs"):
        candidates += [stem + s for s in (".ts", ".tsx", ".mts", ".cts")]
    candidates += [base + s for s in SOURCE_SUFFIXES]
    candidates += [posixpath.join(base, "index" + s) for s in SOURCE_SUFFIXES]
    return candidates


LANGUAGE: Final = Language(
    name="javascript", suffixes=(".js", ".jsx", ".mjs", ".cjs"),
    grammar="tree-sitter-javascript", available=lambda: installed("tree_sitter_javascript"),
    symbols=extract_javascript, imports=javascript_imports, resolve=resolve_relative,
    is_test_path=is_js_test_path, module=module_of,
)
"""JavaScript (and JSX) on the language seam."""
