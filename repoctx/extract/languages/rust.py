"""extract/languages/rust — Rust symbols, imports and tests from tree-sitter-rust.

Invariants: pure; never raises on a `str`. Names are `crate::mod::Item`: the module
path comes from the file's place under the crate's `src/` (`src/lib.rs` and
`src/main.rs` are `crate`, `src/a/mod.rs` and `src/a.rs` are `crate::a`); inline
`mod m { … }` blocks and `impl` blocks qualify what they hold (`crate::a::Store::get`,
whatever trait is implemented) without being symbols themselves. Functions, methods
(in `impl` and `trait`), structs, enums, unions, traits and type aliases (`class`),
`const` / `static` items and `macro_rules!` macros. A test is a function carrying a
`#[test]`-like attribute (`#[test]`, `#[tokio::test]`, `#[rstest]`…). Imports are
`use` paths and `mod m;` declarations; `crate::`, `self::`, `super::` paths and
`mod` files resolve within the crate.
"""

from __future__ import annotations

import posixpath
import re
from typing import Final

from tree_sitter import Language as Grammar
from tree_sitter import Node

from repoctx.extract import treewalk
from repoctx.extract.grammar import encode, installed, load, parse
from repoctx.extract.language import Files, Import, Language, first_existing
from repoctx.extract.symbol import CLASS, FUNCTION, VARIABLE, Symbol
from repoctx.extract.treewalk import Rule, Spec, text_of

_TEST_ATTRIBUTE = re.compile(r"#\[\s*(?:\w+::)*(?:test|rstest|test_case|quickcheck)\b")
_CRATE_ROOTS: Final = frozenset({"lib", "main"})
_KEYWORDS: Final = frozenset({
    "Self", "Some", "None", "Ok", "Err", "Option", "Result", "Box", "Vec", "String",
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128",
    "usize", "f32", "f64", "bool", "char", "str",
})
_REFS: Final = """
(call_expression function: (identifier) @ref)
(call_expression function: (scoped_identifier name: (identifier) @ref))
(call_expression function: (scoped_identifier path: (identifier) @ref))
(call_expression function: (field_expression field: (field_identifier) @ref))
(macro_invocation macro: (identifier) @ref)
(type_identifier) @ref
"""


def _grammar(path: str) -> Grammar | None:
    return load("tree_sitter_rust")


def _module_parts(path: str) -> list[str]:
    """The module path of a Rust file below `crate` (`src/a/b.rs` -> `["a", "b"]`)."""
    parts = path.replace("\\", "/").split("/")
    parts = parts[_past_src(parts) or 0:]
    parts[-1] = parts[-1].removesuffix(".rs")
    if parts[-1] == "mod" or (len(parts) == 1 and parts[0] in _CRATE_ROOTS):
        parts.pop()
    return parts


def _past_src(parts: list[str]) -> int | None:
    """The index just past the last `src` directory among `parts` (None without one)."""
    if "src" not in parts[:-1]:
        return None
    return len(parts) - parts[::-1].index("src")


def module_of(path: str) -> str:
    """The module of a Rust file: `crate`, `crate::a`, `crate::a::b`."""
    return "::".join(["crate", *_module_parts(path)])


def _impl_name(node: Node, source: bytes) -> str | None:
    """The type an `impl` block is for (`impl<T> Trait for Store<T>` -> `Store`)."""
    target = node.child_by_field_name("type")
    while target is not None and target.type in ("generic_type", "reference_type",
                                                  "scoped_type_identifier"):
        inner = target.child_by_field_name("type") or target.child_by_field_name("name")
        if inner is None:
            break
        target = inner
    return text_of(target) or None


def _inline_module(node: Node, source: bytes, outer: str | None) -> str | None:
    return "" if node.child_by_field_name("body") is not None else None


def _top_level(node: Node, source: bytes, outer: str | None) -> str | None:
    return VARIABLE if outer in (None, "") else None


def _has_test_attribute(node: Node, source: bytes, path: str) -> bool:
    sibling = node.prev_named_sibling
    while sibling is not None and sibling.type in ("attribute_item", "line_comment",
                                                   "block_comment"):
        if sibling.type == "attribute_item" and _TEST_ATTRIBUTE.match(text_of(sibling)):
            return True
        sibling = sibling.prev_named_sibling
    return False


SPEC: Final = Spec(
    grammar=_grammar,
    rules={
        "function_item": Rule(FUNCTION, test=_has_test_attribute),
        "function_signature_item": Rule(FUNCTION, header_end=()),
        "struct_item": Rule(CLASS),
        "enum_item": Rule(CLASS),
        "union_item": Rule(CLASS),
        "trait_item": Rule(CLASS),
        "type_item": Rule(CLASS, header_end=("type",)),
        "associated_type": Rule(CLASS, header_end=()),
        "impl_item": Rule("", name=_impl_name),
        "mod_item": Rule(_inline_module, methods=False),
        "const_item": Rule(_top_level, header_end=("value",)),
        "static_item": Rule(_top_level, header_end=("value",)),
        "macro_definition": Rule(FUNCTION, signature=lambda node, source: "macro_rules! "
                                 + text_of(node.child_by_field_name("name"))),
    },
    refs=_REFS,
    module=lambda path, source, root: module_of(path),
    separator="::",
    keywords=_KEYWORDS,
    before=frozenset({"attribute_item"}),
    comments=frozenset({"line_comment", "block_comment"}),
)


def extract_rust(path: str, text: str) -> tuple[Symbol, ...]:
    """The items of Rust `text` (see the module docstring)."""
    return treewalk.symbols(SPEC, path, text)


def rust_imports(path: str, text: str) -> tuple[Import, ...]:
    """`use` paths (a `{…}` group keeps its common prefix) and `mod m;` declarations
    (as `mod m`), with their lines."""
    language = _grammar(path)
    if language is None:
        return ()
    root = parse(language, encode(text))
    out = []
    pending = [root]
    while pending:
        node = pending.pop()
        for child in node.named_children:
            if child.type == "use_declaration":
                argument = re.sub(r"\s+as\s+\w+\s*$", "",
                                  text_of(child.child_by_field_name("argument")))
                specifier = re.sub(r"\s+", "", argument.split("{", 1)[0]).removesuffix("*")
                specifier = specifier.rstrip(":")
                if specifier:
                    out.append(Import(specifier, child.start_point[0] + 1))
            elif child.type == "mod_item":
                body = child.child_by_field_name("body")
                if body is None:
                    out.append(Import(f"mod {text_of(child.child_by_field_name('name'))}",
                                      child.start_point[0] + 1))
                else:
                    pending.append(body)
    return tuple(sorted(out, key=lambda item: item.line))


def _crate_root(path: str) -> str | None:
    parts = path.split("/")
    end = _past_src(parts)
    return None if end is None else "/".join(parts[:end])


def _module_file(files: Files, src: str, parts: list[str]) -> str | None:
    """The file of the module `parts` below the crate's `src` directory."""
    if not parts:
        return first_existing(files, [posixpath.join(src, "lib.rs"),
                                      posixpath.join(src, "main.rs")])
    base = posixpath.join(src, *parts)
    return first_existing(files, [base + ".rs", posixpath.join(base, "mod.rs")])


def resolve_rust(importer: str, specifier: str, files: Files) -> str | None:
    """The file a `use crate::…` / `self::…` / `super::…` path or a `mod m;` names
    within `importer`'s crate (the longest module prefix of the path that is a file)."""
    src = _crate_root(importer)
    if src is None:
        return None
    here = _module_parts(importer)
    if specifier.startswith("mod "):
        # `mod m;` in `a.rs` or `a/mod.rs` is `a/m.rs` or `a/m/mod.rs` (Rust 2018)
        return _module_file(files, src, [*here, specifier[4:].strip()])
    segments = [s for s in specifier.split("::") if s]
    if not segments:
        return None
    head, rest = segments[0], segments[1:]
    if head == "crate":
        parts: list[str] = []
    elif head == "self":
        parts = list(here)
    elif head == "super":
        parts = list(here[:-1])
        while rest and rest[0] == "super":
            parts, rest = parts[:-1], rest[1:]
    else:
        return None  # another crate: std, a dependency
    for end in range(len(rest), -1, -1):
        found = _module_file(files, src, parts + rest[:end])
        if found is not None:
            return found
    return None


def is_rust_test_path(path: str) -> bool:
    """True for a Rust integration test or bench file: under `tests/` or `benches/`."""
    parts = path.replace("\\", "/").split("/")
    return any(part in ("tests", "benches") for part in parts[:-1])


LANGUAGE: Final = Language(
    name="rust", suffixes=(".rs",), grammar="tree-sitter-rust",
    available=lambda: installed("tree_sitter_rust"), symbols=extract_rust,
    imports=rust_imports, resolve=resolve_rust, is_test_path=is_rust_test_path,
    separator="::", module=module_of,
)
"""Rust on the language seam."""
