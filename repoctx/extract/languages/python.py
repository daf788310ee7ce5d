"""extract/languages/python — Python symbols from a tree-sitter-python syntax tree.

Invariants:
- never raises on a `str`: tree-sitter recovers from syntax errors (whatever still
  parses is extracted) and text that cannot be encoded (lone surrogates) is replaced;
- one compiled `Query` per process and one `Parser` per thread (a parser is not
  thread-safe), built on first use; the tree is read through query captures, not a
  Python-level walk of every node;
- classes and functions are exactly what Python's `ast` sees: one symbol per
  ClassDef / FunctionDef / AsyncFunctionDef (a conditional or overloaded definition
  yields one symbol per `def`), the qualified name joins the enclosing class and
  function names with `.`, a function whose nearest enclosing definition is a class
  is a `method` (also inside `if`/`try` blocks of the class body), and `start_line`
  is `ast`'s `lineno` — the `def`/`class` line, not a decorator's; a `def` decorated
  with `@overload` (bare or as `typing.overload`, `t.overload`…) is marked `overload`;
- variables are module-level simple-name bindings — `X = …`, `X: T = …`, `X: T`,
  `A = B = …`, `A, B = …`, `type X = …` — also inside module-level `if` / `try` /
  `with` / `for` / `while` blocks; only a name's first binding is reported;
- refs of a symbol are the simple names used in it as base classes (and `metaclass=`),
  decorators, annotations, call targets, raised and caught exception types, with
  `a.b.C` reduced to `C` and keywords dropped; a nested definition owns its own refs,
  so they are not repeated on the enclosing symbol;
- targets of a symbol qualify those same reference sites as far as the file says
  (`python_bindings`: its imports and top-level `def`/`class` names, `self`/`cls` in a
  method), keyed by the last segment of the spelling, so `uf()` after
  `from m import url_for as uf` is `("url_for", "m.url_for")`.
"""

from __future__ import annotations

import keyword
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import Final

import tree_sitter_python
from tree_sitter import Language as Grammar
from tree_sitter import Node, Parser, Query, QueryCursor

from repoctx.extract.language import Language
from repoctx.extract.languages import python_bindings
from repoctx.extract.modules import module_name, qualify
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, VARIABLE, Symbol, bounded

_QUERY_SOURCE: Final = """
(class_definition) @class
(function_definition) @function
(decorated_definition) @decorated
(typed_parameter type: (type) @type)
(typed_default_parameter type: (type) @type)
(function_definition return_type: (type) @type)
(assignment type: (type) @type)
(type_alias_statement right: (type) @type)
(call function: (identifier) @ref)
(call function: (attribute attribute: (identifier) @ref))
(decorator (identifier) @ref)
(decorator (attribute attribute: (identifier) @ref))
(class_definition superclasses: (argument_list (identifier) @ref))
(class_definition superclasses: (argument_list (attribute attribute: (identifier) @ref)))
(class_definition superclasses: (argument_list (subscript value: (identifier) @ref)))
(class_definition superclasses: (argument_list
  (subscript value: (attribute attribute: (identifier) @ref))))
(class_definition superclasses: (argument_list (keyword_argument value: (identifier) @ref)))
(class_definition superclasses: (argument_list
  (keyword_argument value: (attribute attribute: (identifier) @ref))))
(raise_statement . (identifier) @ref)
(raise_statement . (attribute attribute: (identifier) @ref))
(except_clause value: (identifier) @ref)
(except_clause value: (attribute attribute: (identifier) @ref))
(except_clause value: (tuple (identifier) @ref))
(except_clause value: (tuple (attribute attribute: (identifier) @ref)))
(except_clause value: (as_pattern . (identifier) @ref))
(except_clause value: (as_pattern . (attribute attribute: (identifier) @ref)))
(except_clause value: (as_pattern . (tuple (identifier) @ref)))
(except_clause value: (as_pattern . (tuple (attribute attribute: (identifier) @ref))))
(import_statement) @import
(import_from_statement) @import
"""

# Module-level compound statements whose blocks still bind module globals.
_SCOPE_KEEPING: Final = frozenset({
    "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
    "except_group_clause", "finally_clause", "with_statement", "for_statement",
    "while_statement", "block",
})
_TARGET_LISTS: Final = frozenset({"pattern_list", "tuple_pattern", "list_pattern"})
_NOT_REFS: Final = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)
_DOTTED_NAME = re.compile(r"[^\W\d]\w*(?:\.[^\W\d]\w*)*")
_COMMENT_OR_STRING = re.compile(r"(\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')|#[^\n]*")
_OPEN_SPACE = re.compile(r"([(\[]) ")
_SPACE_CLOSE = re.compile(r" ([)\]])")
_TRAILING_COMMA = re.compile(r",\)(?= ->|$)")  # `def f(\n    a,\n)` reads `def f(a)`
_OVERLOAD = re.compile(r"@\s*(?:[A-Za-z_]\w*\s*\.\s*)*overload")
_PER_THREAD = threading.local()
_HEADER_CAP: Final = 2000  # bytes of a header or docstring worth decoding
_STATEMENT_CAP: Final = 800  # bytes of a variable's statement worth decoding


@dataclass(frozen=True, slots=True)
class _Grammar:
    """The process-wide language, compiled query and grammar field ids."""

    language: Grammar
    query: Query
    name: int
    parameters: int
    return_type: int
    superclasses: int
    type_parameters: int
    body: int
    definition: int
    left: int
    right: int
    type: int


@dataclass(frozen=True, slots=True)
class _Span:
    """One symbol under construction: its owned byte range and finished fields."""

    start: int
    end: int
    qualname: str
    kind: str
    signature: str
    doc: str
    start_line: int
    end_line: int
    overload: bool = False


@cache
def _grammar() -> _Grammar:
    language = Grammar(tree_sitter_python.language())
    field = language.field_id_for_name
    return _Grammar(
        language, Query(language, _QUERY_SOURCE),
        *(field(name) for name in (
            "name", "parameters", "return_type", "superclasses", "type_parameters",
            "body", "definition", "left", "right", "type",
        )),
    )


def _parser(grammar: _Grammar) -> Parser:
    parser: Parser | None = getattr(_PER_THREAD, "parser", None)
    if parser is None:
        parser = _PER_THREAD.parser = Parser(grammar.language)
    return parser


def extract_python(path: str, text: str) -> tuple[Symbol, ...]:
    """Extract the classes, functions, methods and module variables of Python `text`.

    `path` (relative, POSIX) gives the module (`module_name`). Never raises on
    malformed source; see the module docstring for what is extracted.
    """
    grammar, source, root, captures = _parse(text)
    spans = _definitions(grammar, source, captures)
    spans.extend(_variables(grammar, source, root))
    spans.sort(key=lambda span: span.start)
    module = module_name(path)
    bound = _bindings(path, module, captures, spans)
    refs = _owned_refs(spans, _ref_sites(captures), module, bound)
    return tuple(
        Symbol(
            qualify(module, span.qualname), span.qualname.rpartition(".")[2], span.kind,
            span.signature, span.doc, span.start_line, span.end_line, refs[index][0],
            span.overload, targets=refs[index][1],
        )
        for index, span in enumerate(spans)
    )


def bindings_of(path: str, text: str) -> dict[str, str]:
    """What the names of a Python file stand for, as the file itself says
    (``python_bindings``): its imports and top-level definitions."""
    grammar, source, _, captures = _parse(text)
    return _bindings(path, module_name(path), captures, _definitions(grammar, source, captures))


def _parse(text: str) -> tuple[_Grammar, bytes, Node, dict[str, list[Node]]]:
    """The syntax tree of ``text`` and its query captures. The thread's last parse is
    kept: a pass reads a file's symbols, then its bindings (``extract.links``) from the
    same text, and one parse serves both."""
    held = getattr(_PER_THREAD, "parsed", None)
    if held is not None and held[0] == text:
        return held[1]
    source = _encode(text)
    grammar = _grammar()
    root = _parser(grammar).parse(source).root_node
    parsed = grammar, source, root, QueryCursor(grammar.query).captures(root)
    _PER_THREAD.parsed = text, parsed
    return parsed


def _bindings(path: str, module: str, captures: dict[str, list[Node]], spans: list[_Span],
              ) -> dict[str, str]:
    return python_bindings.bindings([
        *python_bindings.import_bindings(path, captures.get("import", ())),
        *python_bindings.definition_bindings(
            module, ((s.start, s.qualname) for s in spans if s.kind != VARIABLE)),
    ])


def _encode(text: str) -> bytes:
    # `ast` counts a lone "\r" as a line break; tree-sitter counts only "\n".
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: keep going with replacements
        return text.encode("utf-8", "replace")


def _definitions(grammar: _Grammar, source: bytes, captures: dict[str, list[Node]]) -> list[_Span]:
    """Qualify every class/function node by a sweep over them in source order."""
    decorated, overloads = _decorator_starts(grammar, captures.get("decorated", ()))
    nodes = [(node, True) for node in captures.get("class", ())]
    nodes += [(node, False) for node in captures.get("function", ())]
    nodes.sort(key=lambda item: item[0].start_byte)
    spans: list[_Span] = []
    enclosing: list[tuple[int, str, bool]] = []  # (end byte, qualname, is a class)
    for node, is_class in nodes:
        name_node = node.child_by_field_id(grammar.name)
        if name_node is None or name_node.start_byte == name_node.end_byte:
            continue
        start, end = node.start_byte, node.end_byte
        while enclosing and enclosing[-1][0] <= start:
            enclosing.pop()
        name = name_node.text.decode("utf-8", "replace")
        qualname = f"{enclosing[-1][1]}.{name}" if enclosing else name
        kind = CLASS if is_class else (METHOD if enclosing and enclosing[-1][2] else FUNCTION)
        enclosing.append((end, qualname, is_class))
        spans.append(_Span(
            decorated.get(start, start), end, qualname, kind,
            _header(grammar, source, node, is_class), _docstring(grammar, source, node),
            node.start_point[0] + 1, node.end_point[0] + 1, start in overloads,
        ))
    return spans


def _decorator_starts(grammar: _Grammar, decorated: list[Node],
                      ) -> tuple[dict[int, int], set[int]]:
    """Map a decorated definition's start byte to its first decorator's start byte, and
    the start bytes of the definitions decorated with ``overload``."""
    starts: dict[int, int] = {}
    overloads: set[int] = set()
    for node in decorated:
        definition = node.child_by_field_id(grammar.definition)
        if definition is None:
            continue
        starts[definition.start_byte] = node.start_byte
        if any(_is_overload(child) for child in node.children if child.type == "decorator"):
            overloads.add(definition.start_byte)
    return starts, overloads


def _is_overload(decorator: Node) -> bool:
    """True for ``@overload`` and ``@<module>.overload`` (typing, typing_extensions…)."""
    text = (decorator.text or b"").decode("utf-8", "replace")
    return _OVERLOAD.fullmatch(text.strip()) is not None


def _header(grammar: _Grammar, source: bytes, node: Node, is_class: bool) -> str:
    """The `def …(…) -> …` / `class …(…)` line, comments dropped, whitespace collapsed."""
    fields = (grammar.superclasses,) if is_class else (grammar.return_type, grammar.parameters)
    last = None
    for field in (*fields, grammar.type_parameters, grammar.name):
        last = node.child_by_field_id(field)
        if last is not None:
            break
    start = node.start_byte
    end = min(last.end_byte if last is not None else start, start + _HEADER_CAP)
    text = source[start:end].decode("utf-8", "replace")
    if "\n" in text:
        if "#" in text:
            text = _COMMENT_OR_STRING.sub(lambda match: match.group(1) or "", text)
        text = text.replace("\\\n", " ")
    flat = " ".join(text.split())
    if "( " in flat or " )" in flat or "[ " in flat or " ]" in flat:
        flat = _SPACE_CLOSE.sub(r"\1", _OPEN_SPACE.sub(r"\1", flat))
    return bounded(_TRAILING_COMMA.sub(")", flat) if ",)" in flat else flat)


def _docstring(grammar: _Grammar, source: bytes, node: Node) -> str:
    """First line of the docstring of a class/function node, or ''."""
    body = node.child_by_field_id(grammar.body)
    first = _first_named(body) if body is not None else None
    while first is not None and first.type == "comment":
        first = first.next_named_sibling
    if first is None or first.type != "expression_statement":
        return ""
    string = _first_named(first)
    if string is not None and string.type == "concatenated_string":
        string = _first_named(string)
    if string is None or string.type != "string" or first.named_child_count != 1:
        return ""
    return _first_doc_line(source[string.start_byte:min(string.end_byte,
                                                        string.start_byte + _HEADER_CAP)])


def _first_named(node: Node) -> Node | None:
    # Node.named_child raises IndexError past the end, which error recovery can reach.
    return node.named_child(0) if node.named_child_count else None


def _first_doc_line(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    quote_at = min((i for i in (text.find('"'), text.find("'")) if i >= 0), default=-1)
    if quote_at < 0 or any(c in "fFbBtT" for c in text[:quote_at]):
        return ""  # f-strings, bytes and t-strings are not docstrings
    quote = text[quote_at:quote_at + 3]
    quote = quote if quote in ('"""', "'''") else text[quote_at]
    content = text[quote_at + len(quote):]
    closing = content.find(quote)
    for line in (content[:closing] if closing >= 0 else content).splitlines():
        if line.strip():
            return bounded(line)
    return ""


def _variables(grammar: _Grammar, source: bytes, root: Node) -> list[_Span]:
    """One span per first module-level binding of a simple name."""
    seen: set[str] = set()
    spans: list[_Span] = []
    for statement, name_node in _module_bindings(grammar, root):
        name = name_node.text.decode("utf-8", "replace")
        if name in seen:
            continue
        seen.add(name)
        start, end = statement.start_byte, statement.end_byte
        signature = bounded(source[start:min(end, start + _STATEMENT_CAP)].decode(
            "utf-8", "replace"))
        spans.append(_Span(start, end, name, VARIABLE, signature, "",
                           statement.start_point[0] + 1, statement.end_point[0] + 1))
    return spans


def _module_bindings(grammar: _Grammar, node: Node) -> Iterator[tuple[Node, Node]]:
    """(statement, bound identifier) pairs at module level, in source order."""
    pending = [iter(node.children)]  # a stack, not recursion: nesting depth is unbounded
    while pending:
        child = next(pending[-1], None)
        if child is None:
            pending.pop()
            continue
        kind = child.type
        if kind in _SCOPE_KEEPING:
            pending.append(iter(child.children))
        elif kind == "expression_statement":
            assignment = _first_named(child)
            if assignment is not None and assignment.type == "assignment":
                for target in _targets(grammar, assignment):
                    yield child, target
        elif kind == "type_alias_statement":
            alias = child.child_by_field_id(grammar.left)
            target = _first_named(alias) if alias is not None else None
            if target is not None and target.type == "generic_type":  # type Pair[T] = …
                target = _first_named(target)
            if target is not None and target.type == "identifier":
                yield child, target


def _targets(grammar: _Grammar, assignment: Node) -> Iterator[Node]:
    """Identifiers bound by `A = …`, `A, B = …`, `A: T = …` and chains `A = B = …`."""
    while assignment is not None and assignment.type == "assignment":
        left = assignment.child_by_field_id(grammar.left)
        if left is not None and left.type == "identifier":
            yield left
        elif left is not None and left.type in _TARGET_LISTS:
            yield from (item for item in left.named_children if item.type == "identifier")
        assignment = assignment.child_by_field_id(grammar.right)


def _ref_sites(captures: dict[str, list[Node]]) -> list[tuple[int, str, str]]:
    """(byte offset, simple name, dotted use) of every reference, in source order."""
    sites = [(node.start_byte, node.text.decode("utf-8", "replace"), _dotted_use(node))
             for node in captures.get("ref", ())]
    for node in captures.get("type", ()):
        offset = node.start_byte
        text = node.text.decode("utf-8", "replace")
        sites.extend((offset, dotted.rpartition(".")[2], dotted)
                     for dotted in _DOTTED_NAME.findall(text))
    sites.sort(key=lambda site: site[0])
    return sites


def _dotted_use(node: Node) -> str:
    """``X.Y.n`` for the ``n`` of an attribute chain of plain names, else the name itself."""
    parent = node.parent
    name = node.text.decode("utf-8", "replace")
    if parent is None or parent.type != "attribute" or parent.end_byte != node.end_byte:
        return name
    dotted = "".join(parent.text.decode("utf-8", "replace").split())
    return dotted if _DOTTED_NAME.fullmatch(dotted) else name


def _owned_refs(spans: list[_Span], sites: list[tuple[int, str, str]], module: str,
                bound: dict[str, str],
                ) -> list[tuple[tuple[str, ...], tuple[tuple[str, str], ...]]]:
    """Give each reference to the innermost span holding it; spans are sorted by start.

    Each span gets its simple names and its ``(simple name, qualified spelling)`` pairs.
    Spans with the same byte range (the targets of `A = B = f()`) share one set.
    """
    owned: list[tuple[set[str], set[tuple[str, str]]]] = []
    for index, span in enumerate(spans):
        twin = spans[index - 1] if index else None
        same = twin is not None and twin.start == span.start and twin.end == span.end
        owned.append(owned[-1] if same else (set(), set()))
    open_spans: list[int] = []
    following = 0
    for offset, name, dotted in sites:
        while following < len(spans) and spans[following].start <= offset:
            while open_spans and spans[open_spans[-1]].end <= spans[following].start:
                open_spans.pop()
            open_spans.append(following)
            following += 1
        while open_spans and spans[open_spans[-1]].end <= offset:
            open_spans.pop()
        if not open_spans or name in _NOT_REFS:
            continue
        span = spans[open_spans[-1]]
        names, targets = owned[open_spans[-1]]
        names.add(name)
        method_class = (qualify(module, span.qualname.rpartition(".")[0])
                        if span.kind == METHOD else None)
        spelled = python_bindings.spelling(dotted, bound, method_class)
        if spelled is not None:  # keyed by what it names: `uf` of `import url_for as uf`
            targets.add((spelled.rpartition(".")[2], spelled))
    return [(tuple(sorted(names)), tuple(sorted(targets))) for names, targets in owned]


_TEST_FILE = re.compile(r"(?:test_.+|.+_test|conftest)\.pyi?\Z")


def is_python_test_path(path: str) -> bool:
    """True for a Python test file by name: `test_*.py`, `*_test.py`, `conftest.py`
    (`.pyi` likewise); directories are judged by `testcode.is_test_path`."""
    return _TEST_FILE.match(path.replace("\\", "/").rsplit("/", 1)[-1]) is not None


LANGUAGE: Final = Language(
    name="python", suffixes=(".py", ".pyi", ".pyw"), grammar="tree-sitter-python",
    available=lambda: True, symbols=extract_python, is_test_path=is_python_test_path,
    module=module_name,
)
"""Python on the language seam (its imports are read and resolved by `retrieval/impact/imports`)."""
