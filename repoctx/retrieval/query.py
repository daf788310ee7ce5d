"""retrieval/query — identifier-aware tokenisation, shared by the search index and queries.

Pure; no I/O. Code is written ``self.model``, ``snake_case``, ``camelCase`` and
``HTTPResponse``; people ask about "the model", "snake case" and "http response". Both
sides therefore pass the same splitter: the index keeps every original identifier and
adds its parts next to it (so proximity survives), and a query keeps its words, their
identifier parts and the joins of neighbouring words (``select related`` →
``selectrelated``), which meet a symbol's normalised name.

Every user query passes :func:`sanitise_query` exactly once: it bounds the input and
keeps only word characters, so no FTS5 syntax (quotes, ``NEAR``, ``*``, ``:``,
parentheses, column filters) can reach a MATCH expression; :func:`fts_or` then quotes
each term.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from repoctx.errors import ToolError

MAX_QUERY_CHARS = 1000
MAX_QUERY_TERMS = 32
"""What one query as matched may hold; longer texts are reduced first (``task_text``)."""
MAX_TEXT_CHARS = 100_000
"""Longest query or task accepted (a pasted issue with its traceback: 64k and more)."""
MAX_JOIN_WORDS = 3  # neighbouring words joined into one candidate identifier
_WORD = re.compile(r"[A-Za-z0-9_]+")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
IDENTIFIER_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
"""One part of an identifier chunk: an acronym, a (capitalised) word, or digits."""
# An identifier worth splitting: has an inner underscore or a lower→upper / ACRONYMWord turn.
_COMPOUND = re.compile(r"[A-Za-z0-9]_+[A-Za-z0-9]|[a-z][A-Z]|[A-Z][A-Z][a-z]")
# A word-start, then (lazily, within the word) an underscore or a case turn; the word is
# taken possessively, so the scan never backtracks (5x faster than a plain pattern).
_TOKEN_IN_TEXT = re.compile(r"\b(?=[A-Za-z0-9_]*?(?:_|[a-z][A-Z]|[A-Z]{2}[a-z]))[A-Za-z0-9_]++")
_SUFFIXES = (("ies", "y"), ("sses", "ss"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))

_STOPWORD_TEXT = """
a about above after again against all am an and any are as at be because been before
being below between both but by can could did do does doing done down during each else
ever every few for from further get gets got had has have having he her here hers him
his how i if in into is it its itself just let lets like me might more most must my no
nor not now of off on once only or other our out over own same shall she should so some
such than that the their them then there these they this those through to too under
until up upon us very via was way we were what when where whether which while who whom
whose why will with within without would yes yet you your
"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
"""English function words: they match everywhere, so no ranking looks for them."""
TASK_WORDS = frozenset({"also", "bug", "class", "code", "file", "files", "fix", "function",
                        "method", "test", "tests"})
"""Words every task writes that name no identifier: skipped, besides ``STOPWORDS``, when
a task's words are guessed as names without a search index to weigh them."""


def split_identifier(token: str) -> list[str]:
    """The lowercase parts of an identifier: ``getHTTPResponse_code`` → get http response code."""
    return [part.lower() for chunk in token.split("_") for part in IDENTIFIER_PART.findall(chunk)]


def is_compound(token: str) -> bool:
    """True when ``token`` is an identifier with more than one part."""
    return _COMPOUND.search(token) is not None


def normalise_name(name: str) -> str:
    """A name folded for comparison across styles: lowercase, no underscores."""
    return name.replace("_", "").lower()


@lru_cache(maxsize=65536)
def light_stem(word: str) -> str:
    """A cheap suffix fold (``savepoints`` → ``savepoint``, ``queries`` → ``query``).

    Used only where SQLite's Porter stemmer cannot be (symbol parts, path parts, the
    snippet matcher); both sides of a comparison pass it.
    """
    word = word.lower()
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: -len(suffix)] + repl
    return word


def _expand(match: re.Match[str]) -> str:
    return _expansion(match.group(0))


@lru_cache(maxsize=1 << 18)  # identifiers repeat a lot (``self.items``); Django: 4x fewer splits
def _expansion(token: str) -> str:
    parts = split_identifier(token)
    if not parts or (len(parts) == 1 and parts[0] == token):
        return token
    return f"{token} {' '.join(parts)}"


def expand_for_index(text: str) -> str:
    """``text`` with each compound identifier followed by its parts, for the Porter table.

    ``snake_case`` → ``snake_case snake case``; ``HTTPResponse`` → ``HTTPResponse http
    response``. Dotted names need nothing: the tokenizer splits at ``.``.
    """
    return _TOKEN_IN_TEXT.sub(_expand, text)


@dataclass(frozen=True)
class QueryTerms:
    """A sanitised query: its words, their identifier parts and joins, in query order."""

    text: str
    raw: tuple[str, ...]  # the word tokens as typed (case kept), stopwords included
    words: tuple[str, ...]  # lowercase content words and parts, deduplicated, no stopwords
    identifiers: tuple[str, ...]  # lowercase tokens typed as compound identifiers
    joins: tuple[str, ...]  # normalised joins of neighbouring content words
    name: str | None = None  # the query as typed when it is one (dotted) identifier

    @property
    def empty(self) -> bool:
        """True when nothing searchable is left."""
        return not self.words


def sanitise_query(query: object, argument: str = "query") -> QueryTerms:
    """The one gate every user query passes: bounded, FTS syntax stripped, tokenised.

    Raises ``ToolError`` naming ``argument`` when the query is not a string, longer than
    ``MAX_QUERY_CHARS`` or holds more than ``MAX_QUERY_TERMS`` words.
    """
    if not isinstance(query, str):
        raise ToolError(f"{argument}: must be a string (got {type(query).__name__})")
    if len(query) > MAX_QUERY_CHARS:
        raise ToolError(f"{argument}: at most {MAX_QUERY_CHARS} characters (got {len(query)})")
    raw = typed_words(query)
    if len(raw) > MAX_QUERY_TERMS:
        raise ToolError(f"{argument}: at most {MAX_QUERY_TERMS} words (got {len(raw)})")
    name = query.strip()
    return _terms(" ".join(raw), raw, name if _NAME.fullmatch(name) else None)


def typed_words(query: str) -> tuple[str, ...]:
    """The words of ``query`` as typed (case kept), the ones ``MAX_QUERY_TERMS`` bounds."""
    return tuple(t for t in (w.strip("_") for w in _WORD.findall(query)) if t)


def _terms(text: str, raw: tuple[str, ...], name: str | None = None) -> QueryTerms:
    words: dict[str, None] = {}
    identifiers: dict[str, None] = {}
    content: list[str] = []
    for token in raw:
        lower = token.lower()
        if lower in STOPWORDS:
            continue
        content.append(token)
        if is_compound(token):
            identifiers[lower] = None
            words[lower] = None
        for part in split_identifier(token) or [lower]:
            if part not in STOPWORDS:
                words[part] = None
    return QueryTerms(text, raw, tuple(words), tuple(identifiers), _joins(content), name)


def _joins(content: list[str]) -> tuple[str, ...]:
    joins: dict[str, None] = {}
    for size in range(2, MAX_JOIN_WORDS + 1):
        for start in range(len(content) - size + 1):
            joins[normalise_name("".join(content[start : start + size]))] = None
    return tuple(joins)


def replace_words(terms: QueryTerms, corrections: dict[str, str]) -> QueryTerms:
    """``terms`` re-tokenised with each corrected word (as typed, or lowercase) swapped
    for its fix."""

    def fixed(token: str) -> str:
        return corrections.get(token, corrections.get(token.lower(), token))

    raw = tuple(fixed(t) for t in terms.raw)
    name = terms.name
    if name is not None:
        name = ".".join(fixed(p) for p in name.split("."))
    return _terms(" ".join(raw), raw, name)


def fts_quote(term: str) -> str:
    """One FTS5 string literal (inner ``"`` doubled; sanitised terms hold none)."""
    return '"' + term.replace('"', '""') + '"'


def fts_or(terms: list[str] | tuple[str, ...]) -> str | None:
    """An FTS5 OR of quoted terms, or None when there are none."""
    return " OR ".join(fts_quote(t) for t in terms) or None
