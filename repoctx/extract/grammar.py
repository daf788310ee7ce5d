"""extract/grammar — tree-sitter grammars loaded on demand, degrading when absent.

Invariants: a grammar package that is not installed (or whose language cannot be
loaded by the installed tree-sitter) yields None, never an error; each grammar is
loaded once per process and each thread gets its own `Parser` (a parser is not
thread-safe); source text is parsed as UTF-8 with "\\n" line breaks.
"""

from __future__ import annotations

import importlib
import threading
from functools import cache

from tree_sitter import Language, Node, Parser

_PER_THREAD = threading.local()


@cache
def load(module: str, function: str = "language") -> Language | None:
    """The tree-sitter `Language` that `module.function()` returns, or None if the
    grammar package is missing or incompatible with the installed tree-sitter."""
    try:
        package = importlib.import_module(module)
        return Language(getattr(package, function)())
    except (ImportError, AttributeError, TypeError, ValueError):
        return None  # degrade: the language's files become text sections only


def installed(module: str, function: str = "language") -> bool:
    """True if the grammar `module.function` loads."""
    return load(module, function) is not None


def encode(text: str) -> bytes:
    """`text` as the UTF-8 bytes a parser reads: "\\r\\n" and lone "\\r" become "\\n",
    lone surrogates are replaced (never raises)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace")


def parse(language: Language, source: bytes) -> Node:
    """The root node of `source` parsed with `language` (this thread's parser)."""
    parsers: dict[int, Parser] | None = getattr(_PER_THREAD, "parsers", None)
    if parsers is None:
        parsers = _PER_THREAD.parsers = {}
    parser = parsers.get(id(language))
    if parser is None:
        parser = parsers[id(language)] = Parser(language)
    return parser.parse(source).root_node
