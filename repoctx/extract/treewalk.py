"""extract/treewalk — the tree-sitter walk most language modules share.

A language module describes its definitions as `Rule`s keyed by syntax-node type
and its references as a query capturing `@ref` nodes, wraps them in a `Spec`, and
calls `symbols(spec, path, text)`. The walk finds every definition node with one
compiled query (no Python-level visit of every node), nests definitions by byte
containment, qualifies names with the language's separator under the file's module
prefix, takes the signature as the declaration header (up to its body), the exact
start/end lines of the node, the first line of the doc comment right above it, and
gives each reference to the innermost definition holding it.

Invariants: never raises on a `str`; a grammar that is not installed yields no
symbols; a definition nested in a function is qualified by it (`outer.inner`), a
function directly inside a class-like scope is a `method`; refs are distinct simple
names, keywords of the language removed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tree_sitter import Language, Node, Query, QueryCursor

from repoctx.extract.grammar import encode, parse
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, Symbol, bounded

KindOf = Callable[[Node, bytes, "str | None"], "str | None"]
"""`(node, source, enclosing kind or None) -> kind`, None to skip the node."""

_HEADER_CAP = 2000  # bytes of a header worth decoding
_DOC_MARKERS = re.compile(r"^\s*(?:/\*\*?!?|\*/|\*(?!/)|///?!?|#+|--)\s?")


@dataclass(frozen=True, slots=True)
class Rule:
    """How one syntax-node type declares a symbol.

    `kind` is a kind (`CLASS`, `FUNCTION`, `VARIABLE`; a `FUNCTION` directly inside a
    class-like scope becomes `METHOD`), '' for a scope that declares no symbol itself
    (a Rust `impl`, a C++ namespace), or a `KindOf` callable deciding per node.
    `name` is the field holding the name, or a callable `(node, source) -> name`.
    `header_end` lists the fields whose start ends the signature (the body); without
    any, the signature is the node's first line. `methods` says whether functions
    directly inside are methods (default: for `CLASS` and scope-only rules).
    `qualify` may return the full qualified-name parts itself (a Go method is
    `Type.Method` wherever it is written). `test` marks test definitions
    (`(node, source, path) -> bool`), such as `#[test]` or `func TestX`. `start`
    gives the 0-based row the symbol starts on when it is not the node's first row
    (the name's row, past Java annotations or a C return type on its own line).
    """

    kind: str | KindOf
    name: str | Callable[[Node, bytes], str | None] = "name"
    header_end: tuple[str, ...] = ("body",)
    nests: bool = True
    methods: bool | None = None
    qualify: Callable[[Node, bytes], tuple[str, ...] | None] | None = None
    test: Callable[[Node, bytes, str], bool] | None = None
    signature: Callable[[Node, bytes], str] | None = None
    start: Callable[[Node], int] | None = None
    overload: bool | Callable[[Node], bool] = False
    """The node is a bodiless signature standing for an implementation elsewhere (a
    TypeScript overload): the implementation's declaration wins (`Symbol.overload`);
    a callable decides per node."""


@dataclass(frozen=True, slots=True)
class Spec:
    """A language's definitions, references and naming, for `symbols`.

    `grammar` picks the tree-sitter language for a path (None: not installed).
    `module` gives the prefix of every fully-qualified name declared in the file.
    `wrappers` are node types that carry a definition's doc comment above them
    (`export_statement`, `lexical_declaration`); `before` are sibling node types
    allowed between a doc comment and its definition (attributes, decorators).
    """

    grammar: Callable[[str], Language | None]
    rules: dict[str, Rule]
    refs: str
    module: Callable[[str, bytes, Node], str]
    separator: str = "."
    keywords: frozenset[str] = frozenset()
    wrappers: frozenset[str] = frozenset()
    before: frozenset[str] = frozenset()
    comments: frozenset[str] = frozenset({"comment"})
    patterns: dict[str, str] = field(default_factory=dict)
    """Query patterns capturing `@def` for rule types that should not match every node
    of their type (`call_expression` only for `describe(…)`); default `(type) @def`."""
    targets: Callable[[Node, str, str], list[tuple[int, str, str]]] | None = None
    """`(root, path, module) -> [(offset, name, qualified spelling)]` of the reference
    sites the file qualifies (`Symbol.targets`); a symbol keeps a name's spellings only
    when every site of that name it owns has one."""


@dataclass(slots=True)
class _Span:
    start: int
    end: int
    parts: tuple[str, ...]
    kind: str
    signature: str
    doc: str
    start_line: int
    end_line: int
    test: bool
    name_at: int
    overload: bool = False


_COMPILED: dict[tuple[int, int], tuple[Query, Query | None]] = {}


def _queries(spec: Spec, language: Language) -> tuple[Query, Query | None]:
    key = (id(spec), id(language))
    compiled = _COMPILED.get(key)
    if compiled is None:
        source = "\n".join(spec.patterns.get(t, f"({t}) @def") for t in sorted(spec.rules))
        compiled = _COMPILED[key] = (
            Query(language, source), Query(language, spec.refs) if spec.refs.strip() else None)
    return compiled


def symbols(spec: Spec, path: str, text: str) -> tuple[Symbol, ...]:
    """The symbols of `text` (the contents of `path`) as `spec` describes them."""
    language = spec.grammar(path)
    if language is None:
        return ()
    source = encode(text)
    root = parse(language, source)
    definitions, references = _queries(spec, language)
    nodes = sorted(QueryCursor(definitions).captures(root).get("def", ()),
                   key=lambda node: (node.start_byte, -node.end_byte))
    spans = _spans(spec, source, path, nodes)
    names = {span.name_at for span in spans}
    sites = [] if references is None else sorted(
        (node.start_byte, node.text.decode("utf-8", "replace"))
        for node in QueryCursor(references).captures(root).get("ref", ())
        if node.start_byte not in names  # a definition's own name is no reference
        and node.end_byte > node.start_byte)  # nor a MISSING node error recovery made
    ranges = [(s.start, s.end) for s in spans]
    refs = owned_refs(ranges, sites, spec.keywords)
    module = spec.module(path, source, root)
    spelled = owned_targets(ranges, sites, spec.targets(root, path, module)) \
        if spec.targets is not None else [()] * len(spans)
    out = [Symbol(_qualify(module, span.parts, spec.separator), span.parts[-1], span.kind,
                  span.signature, span.doc, span.start_line, span.end_line, refs[index],
                  span.overload, span.test, spelled[index])
           for index, span in enumerate(spans)]
    return tuple(out)


def _qualify(module: str, parts: tuple[str, ...], separator: str) -> str:
    qualname = separator.join(parts)
    return f"{module}{separator}{qualname}" if module else qualname


def _spans(spec: Spec, source: bytes, path: str, nodes: list[Node]) -> list[_Span]:
    """Definitions in source order, qualified by the definitions enclosing them."""
    spans: list[_Span] = []
    enclosing: list[tuple[int, tuple[str, ...], str, bool]] = []  # end, parts, kind, methods
    for node in nodes:
        rule = spec.rules[node.type]
        while enclosing and enclosing[-1][0] <= node.start_byte:
            enclosing.pop()
        outer = enclosing[-1] if enclosing else None
        kind = rule.kind if isinstance(rule.kind, str) else rule.kind(
            node, source, outer[2] if outer else None)
        name, name_at = _name(rule, node, source)
        if kind is None or not name:
            continue
        parts = rule.qualify(node, source) if rule.qualify else None
        if parts is None:
            parts = (*outer[1], name) if outer else (name,)
        if kind == FUNCTION and outer is not None and outer[3]:
            kind = METHOD
        if rule.nests:
            methods = rule.methods if rule.methods is not None else kind in (CLASS, "")
            enclosing.append((node.end_byte, parts, kind, methods))
        if not kind:
            continue
        signature = rule.signature(node, source) if rule.signature else header(
            node, source, rule.header_end)
        spans.append(_Span(node.start_byte, node.end_byte, parts, kind, signature,
                           doc_comment(spec, node, source),
                           (rule.start(node) if rule.start else node.start_point[0]) + 1,
                           end_line(node),
                           bool(rule.test and rule.test(node, source, path)), name_at,
                           rule.overload(node) if callable(rule.overload) else rule.overload))
    return spans


def end_line(node: Node) -> int:
    """The 1-based last line of `node`; a node ending with its newline (a `#define`,
    a Ruby `end` + newline) ends on the line before the column-0 end point."""
    row, column = node.end_point
    return row if column == 0 and row > node.start_point[0] else row + 1


def _name(rule: Rule, node: Node, source: bytes) -> tuple[str | None, int]:
    """The definition's name and the byte offset of its name node (-1 if unknown)."""
    if callable(rule.name):
        return rule.name(node, source), -1
    name_node = node.child_by_field_name(rule.name)
    if name_node is None or name_node.start_byte == name_node.end_byte:
        return None, -1
    return text_of(name_node), name_node.start_byte


def text_of(node: Node | None) -> str:
    """The decoded text of `node` ('' for None)."""
    return "" if node is None else (node.text or b"").decode("utf-8", "replace")


def header(node: Node, source: bytes, ends: tuple[str, ...] = ("body",)) -> str:
    """The declaration header of `node`: its text up to the first of the `ends` fields
    present (else its first line), on one bounded line."""
    return one_line(header_bytes(node, source, ends))


def header_bytes(node: Node, source: bytes, ends: tuple[str, ...],
                 start: int | None = None) -> bytes:
    """`node`'s source from `start` (its own start by default) up to the first of its
    `ends` fields present, else to the end of that first line; at most `_HEADER_CAP`."""
    stop = None
    for name in ends:
        child = node.child_by_field_name(name)
        if child is not None:
            stop = child.start_byte
            break
    start = node.start_byte if start is None else start
    if stop is None:
        newline = source.find(b"\n", start, node.end_byte)
        stop = node.end_byte if newline < 0 else newline
    return source[start:min(stop, start + _HEADER_CAP)]


def one_line(raw: bytes) -> str:
    """A header's bytes as one bounded line, without the body's opening `{`, `=`, `:`."""
    return bounded(raw.decode("utf-8", "replace").rstrip().rstrip("{=:;").rstrip())


def doc_comment(spec: Spec, node: Node, source: bytes) -> str:
    """First line of the comment block right above `node` (or above its wrappers and
    the attributes/decorators before it), or ''."""
    anchor = node
    while anchor.parent is not None and anchor.parent.type in spec.wrappers:
        anchor = anchor.parent
    line = anchor.start_point[0]
    sibling = anchor.prev_sibling
    while sibling is not None and sibling.type in spec.before:
        line = sibling.start_point[0]
        sibling = sibling.prev_sibling
    block: list[Node] = []
    while sibling is not None and sibling.type in spec.comments \
            and sibling.end_point[0] >= line - 1:
        block.append(sibling)
        line = sibling.start_point[0]
        sibling = sibling.prev_sibling
    for comment in reversed(block):
        for raw in text_of(comment).splitlines():
            text = _DOC_MARKERS.sub("", raw, count=1).strip()
            text = text.removesuffix("*/").strip()
            if any(char.isalnum() for char in text):  # not a `/*****` banner rule
                return bounded(text)
    return ""


def owned_refs(spans: list[tuple[int, int]], sites: list[tuple[int, str]],
               keywords: frozenset[str] = frozenset()) -> list[tuple[str, ...]]:
    """Give each `(byte offset, name)` reference to the innermost of `spans` (byte
    ranges sorted by start) holding it; the sorted distinct names per span."""
    owned: list[set[str]] = [set() for _ in spans]
    open_spans: list[int] = []
    following = 0
    for offset, name in sites:
        while following < len(spans) and spans[following][0] <= offset:
            while open_spans and spans[open_spans[-1]][1] <= spans[following][0]:
                open_spans.pop()
            open_spans.append(following)
            following += 1
        while open_spans and spans[open_spans[-1]][1] <= offset:
            open_spans.pop()
        if open_spans:
            owned[open_spans[-1]].add(name)
    return [tuple(sorted(names - keywords)) for names in owned]


def owned_targets(spans: list[tuple[int, int]], sites: list[tuple[int, str]],
                  spelled: list[tuple[int, str, str]]) -> list[tuple[tuple[str, str], ...]]:
    """Per span, the sorted ``(name, spelling)`` pairs of the reference sites it owns,
    for the names all of whose owned sites are spelled (one unspelled use of a name
    leaves the name unqualified: the file does not say what every use means)."""
    at = {offset: (name, spelling) for offset, name, spelling in spelled}
    marked = [(offset, f"{at[offset][1]}\n" if offset in at else f"\n{name}")
              for offset, name in sites]
    out = []
    for owned in owned_refs(spans, marked):
        unspelled = {item[1:] for item in owned if item.startswith("\n")}
        pairs = {(spelling.rpartition(".")[2], spelling)
                 for item in owned if not item.startswith("\n")
                 for spelling in (item[:-1],)}
        out.append(tuple(sorted(p for p in pairs if p[0] not in unspelled)))
    return out
