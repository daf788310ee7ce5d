"""extract/languages/ruby — Ruby symbols, requires and test files from tree-sitter-ruby.

Invariants (beyond `treewalk`'s):
- names follow `ri`: `Mod::Class` for namespaces, `Mod::Class#method` for an instance
  method, `Mod::Class.method` for a singleton method (`def self.m`, or `def m` inside
  `class << self`); `module A::B` nests as `A::B`;
- classes and modules are `class`; `def` is `method` inside a class or module (else
  `function`); constants assigned in a class, module or at the top (`X = …`) are
  `variable`; `attr_*` and `alias` are not symbols;
- the doc is the first line of the `#` comment block right above;
- in a test file, `describe`/`context` blocks are `class` symbols named by their
  argument and `it`/`specify`/`test` blocks test `method`s named by their description;
  `def test_*` in a test file is a test by the naming rule;
- imports are `require_relative "x"` (resolved relative to the file, `.rb` added) and
  `require "x"` (resolved under `lib/`, then the root).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import replace
from typing import Final

from tree_sitter import Node

from repoctx.extract.declarations import scan_imports
from repoctx.extract.grammar import installed, load
from repoctx.extract.language import Files, Import, Language, first_existing
from repoctx.extract.symbol import CLASS, FUNCTION, METHOD, VARIABLE, Symbol, bounded
from repoctx.extract.treewalk import Rule, Spec, symbols, text_of

_GRAMMAR: Final = "tree_sitter_ruby"
_REQUIRE = re.compile(r"""^[ \t]*(require(?:_relative)?)[ \t(]+["']([^"'\n]+)["']""", re.M)
_TEST_FILE = re.compile(r"(?:test_.+|.+_test|.+_spec)\.rb\Z")
_GROUPS: Final = frozenset({"describe", "context", "feature", "shared_examples"})
_EXAMPLES: Final = frozenset({"it", "specify", "scenario", "test"})
_KEYWORDS: Final = frozenset({"self", "super", "new", "puts", "require", "raise"})

_REFS: Final = """
(call method: (identifier) @ref)
(superclass (constant) @ref)
(scope_resolution name: (constant) @ref)
"""


def _constant_name(node: Node, source: bytes) -> str | None:
    left = node.child_by_field_name("left")
    if left is None or left.type != "constant":
        return None
    return text_of(left)


def _constant_kind(node: Node, source: bytes, outer: str | None) -> str | None:
    return VARIABLE if outer in (None, CLASS) else None


def _singleton_name(node: Node, source: bytes) -> str | None:
    name = text_of(node.child_by_field_name("name"))
    return f".{name}" if name else None


def _in_singleton_class(node: Node) -> bool:
    parent = node.parent
    while parent is not None and parent.type in ("body_statement",):
        parent = parent.parent
    return parent is not None and parent.type == "singleton_class"


def _method_name(node: Node, source: bytes) -> str | None:
    name = text_of(node.child_by_field_name("name"))
    if not name:
        return None
    return f".{name}" if _in_singleton_class(node) else name


def _block_call(node: Node, names: frozenset[str]) -> str | None:
    """The description of a `describe X do … end` / `it "…" do … end` call, or None."""
    method = node.child_by_field_name("method")
    if method is None or text_of(method) not in names or node.child_by_field_name(
            "block") is None:
        return None
    arguments = node.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments and arguments.named_child_count else None
    if first is None:
        return text_of(method)
    text = text_of(first)
    return text.strip("\"'") if first.type == "string" else text


def _spec_kind(node: Node, source: bytes, outer: str | None) -> str | None:
    if _block_call(node, _GROUPS) is not None:
        return CLASS
    if _block_call(node, _EXAMPLES) is not None:
        return METHOD
    return None


def _spec_name(node: Node, source: bytes) -> str | None:
    return _block_call(node, _GROUPS) or _block_call(node, _EXAMPLES)


def _spec_test(node: Node, source: bytes, path: str) -> bool:
    return _block_call(node, _EXAMPLES) is not None


def _class_header(node: Node, source: bytes) -> str:
    """`class Box < Base` / `module A::B`: up to the superclass or name (a comment
    before the first statement of the body is not part of the header)."""
    last = node.child_by_field_name("superclass") or node.child_by_field_name("name")
    end = last.end_byte if last is not None else node.start_byte
    return bounded(source[node.start_byte:end].decode("utf-8", "replace"))


def _scope_name(node: Node, source: bytes) -> str | None:
    """`C` of `class A::B::C`: the last constant of a scoped name."""
    return text_of(node.child_by_field_name("name")).rpartition("::")[2].strip() or None


def _scope_parts(node: Node, source: bytes) -> tuple[str, ...] | None:
    """`(Outer, A, B, C)` for `class A::B::C` inside `module Outer` (None: plain name)."""
    name = text_of(node.child_by_field_name("name"))
    if "::" not in name:
        return None
    parts = [part.strip() for part in name.split("::") if part.strip()]
    parent = node.parent
    while parent is not None:
        if parent.type in ("class", "module"):
            outer = text_of(parent.child_by_field_name("name"))
            parts[:0] = [part.strip() for part in outer.split("::") if part.strip()]
        parent = parent.parent
    return tuple(parts)


_RULES: Final = {
    "class": Rule(CLASS, name=_scope_name, qualify=_scope_parts, signature=_class_header),
    "module": Rule(CLASS, name=_scope_name, qualify=_scope_parts, signature=_class_header),
    "method": Rule(FUNCTION, name=_method_name, header_end=("body",)),
    "singleton_method": Rule(METHOD, name=_singleton_name, header_end=("body",)),
    "assignment": Rule(_constant_kind, name=_constant_name, header_end=(), nests=False),
}
_SPEC: Final = Spec(grammar=lambda path: load(_GRAMMAR), rules=_RULES, refs=_REFS,
                    module=lambda path, source, root: "", separator="::",
                    keywords=_KEYWORDS)
_TEST_SPEC: Final = replace(_SPEC, rules={
    **_RULES, "call": Rule(_spec_kind, name=_spec_name, header_end=("block",), test=_spec_test)})


def extract_ruby(path: str, text: str) -> tuple[Symbol, ...]:
    """The modules, classes, methods and constants of Ruby `text` (and the spec blocks
    of a test file), named the `ri` way (see the module docstring)."""
    spec = _TEST_SPEC if is_ruby_test_path(path) else _SPEC
    found = symbols(spec, path, text)
    lines = text.splitlines() if "#" in text else []
    return tuple(_ri_name(symbol if symbol.doc or not lines else replace(
        symbol, doc=_comment_doc(lines, symbol.start_line - 2))) for symbol in found)


def _comment_doc(lines: list[str], row: int) -> str:
    """The first line of the `#` block right above 0-based `row` (tree-sitter hangs a
    comment before a class body's first statement on the class, not beside it)."""
    block: list[str] = []
    while 0 <= row < len(lines) and lines[row].lstrip().startswith("#"):
        block.append(lines[row].lstrip().lstrip("#").strip())
        row -= 1
    return next((bounded(line) for line in reversed(block) if line), "")


def _ri_name(symbol: Symbol) -> Symbol:
    """`A::B::m` as `A::B#m` for an instance method, `A::B::.m` as `A::B.m`."""
    if symbol.name.startswith("."):
        outer = symbol.fq_name[: -len(symbol.name)].removesuffix("::")
        name = symbol.name[1:]
        return replace(symbol, name=name, fq_name=f"{outer}.{name}" if outer else name,
                       kind=METHOD)
    if symbol.kind == METHOD and not symbol.test and "::" in symbol.fq_name:
        outer, _, name = symbol.fq_name.rpartition("::")
        return replace(symbol, fq_name=f"{outer}#{name}")
    return symbol


def ruby_imports(path: str, text: str) -> tuple[Import, ...]:
    """`require_relative "x"` as `./x`, `require "x"` as `x`, in source order."""
    found = scan_imports(_REQUIRE, text, 0)
    return tuple(
        Import("./" + match.group(2) if match.group(1) == "require_relative"
               else match.group(2), item.line)
        for item, match in zip(found, _REQUIRE.finditer(text), strict=True))


def resolve_ruby(importer: str, specifier: str, files: Files) -> str | None:
    """`./x` relative to the importer, `x` under `lib/` then the root (`.rb` added)."""
    target = specifier if specifier.endswith(".rb") else specifier + ".rb"
    if specifier.startswith("./"):
        return first_existing(files, [posixpath.join(posixpath.dirname(importer), target)])
    return first_existing(files, [f"lib/{target}", target])


def is_ruby_test_path(path: str) -> bool:
    """True for `test_*.rb`, `*_test.rb`, `*_spec.rb`, or a file under `spec/`."""
    parts = path.replace("\\", "/").split("/")
    return _TEST_FILE.match(parts[-1]) is not None or "spec" in parts[:-1]


def _qualname_parts(path: str, fq_name: str) -> tuple[str, ...] | None:
    return tuple(part for part in re.split(r"::|#|\.", fq_name) if part)


LANGUAGE: Final = Language(
    name="ruby", suffixes=(".rb",), grammar="tree-sitter-ruby",
    available=lambda: installed(_GRAMMAR), symbols=extract_ruby, imports=ruby_imports,
    resolve=resolve_ruby, is_test_path=is_ruby_test_path, qualname_parts=_qualname_parts,
    separator="::",
)
"""Ruby on the language seam."""
