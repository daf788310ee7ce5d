"""retrieval/search/state — an open export as search sees it: connection, paths, vocabulary.

Opens the export read-only (``mode=ro`` URI, ``query_only``), so searching never writes
it, and reopens it when a new export has been renamed into place (inode or mtime
changed). The path index and the vocabulary are loaded once per opened file, on first
use; which documents are generated output (``retrieval/generated``, read from a code
document's first and last section) is decided once per document and opened file. SQLite
errors are translated here, in one place, into ``ToolError``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from repoctx import deadline
from repoctx.errors import ToolError
from repoctx.retrieval import generated
from repoctx.retrieval.index.tables import has_search_index
from repoctx.retrieval.licence_notice import LICENCES, foreign_notice, holder_words
from repoctx.retrieval.search import issue_templates
from repoctx.retrieval.search.fuzzy import Vocabulary
from repoctx.retrieval.search.rankings import PathIndex

_MMAP_BYTES = 1 << 30  # reads go straight to the page cache; nothing is written
_HEAD, _TAIL = generated.HEAD_CHARS, generated.TAIL_CHARS
_ENDS = ("SELECT d.path,"
         f" (SELECT substr(s.text, 1, {_HEAD}) FROM sections s WHERE s.doc_id = d.doc_id"
         "  ORDER BY s.ordinal LIMIT 1),"
         f" (SELECT substr(s.text, -{_TAIL}) FROM sections s WHERE s.doc_id = d.doc_id"
         "  ORDER BY s.ordinal DESC LIMIT 1)"
         " FROM documents d WHERE d.kind = 'code' AND d.path IN ({marks})")
_LICENCE = ("SELECT d.path, substr(s.text, 1, 4096) FROM documents d JOIN sections s"
            " ON s.doc_id = d.doc_id WHERE s.ordinal = 0 AND d.path IN ({marks})")
_TEMPLATES = ("SELECT d.path, s.text FROM documents d JOIN sections s ON s.doc_id = d.doc_id"
              " WHERE d.path LIKE '%issue%templat%' ORDER BY d.path, s.ordinal")


@contextmanager
def sqlite_errors(doing: str) -> Iterator[None]:
    """Turn any ``sqlite3.Error`` raised inside into a ``ToolError`` saying what failed."""
    try:
        yield
    except sqlite3.Error as exc:
        raise ToolError(f"search: {doing} failed ({type(exc).__name__}: {exc})") from exc


def connect_read_only(path: Path) -> sqlite3.Connection:
    """Open ``path`` read-only; reading never creates side files nor changes the file."""
    with sqlite_errors(f"opening {path}"):
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True,
                               check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute(f"PRAGMA mmap_size = {_MMAP_BYTES}")
        conn.execute("PRAGMA cache_size = -65536")
        # a statement of a call past its deadline is interrupted, so no query outlives it
        conn.set_progress_handler(deadline.interrupt_when_due, deadline.SQLITE_PROGRESS_OPS)
    return conn


@dataclass
class SearchState:
    """One opened export: its connection and lazily built in-memory helpers."""

    path: Path
    ident: tuple[int, int]
    conn: sqlite3.Connection
    indexed: bool
    _paths: PathIndex | None = field(default=None, repr=False)
    _vocab: Vocabulary | None = field(default=None, repr=False)
    _name_parts: Vocabulary | None = field(default=None, repr=False)
    _sections: int | None = field(default=None, repr=False)
    _ends: dict[str, tuple[bool, bool]] = field(default_factory=dict, repr=False)
    """Path -> (generated, vendored), read from the document's ends once."""
    _holders: frozenset[str] | None = field(default=None, repr=False)
    _template: issue_templates.Boilerplate | None = field(default=None, repr=False)

    def path_index(self) -> PathIndex:
        """Path words → documents, built on first use."""
        if self._paths is None:
            with sqlite_errors("reading document paths"):
                paths = [row[0] for row in self.conn.execute("SELECT path FROM documents")]
            self._paths = PathIndex(paths)
        return self._paths

    def vocabulary(self) -> Vocabulary:
        """The typo-correction vocabulary, loaded on first use."""
        if self._vocab is None:
            with sqlite_errors("reading the vocabulary"):
                self._vocab = Vocabulary.load(self.conn)
        return self._vocab

    def name_parts(self) -> Vocabulary:
        """The identifier parts of the indexed symbol names, loaded on first use."""
        if self._name_parts is None:
            with sqlite_errors("reading the symbol names"):
                names = [row[0] for row in self.conn.execute(
                    "SELECT DISTINCT name FROM repoctx_search_symbols")]
            self._name_parts = Vocabulary.of_names(names)
        return self._name_parts

    def sections(self) -> int:
        """How many sections the search index holds (counted once)."""
        if self._sections is None:
            with sqlite_errors("counting sections"):
                (self._sections,) = self.conn.execute(
                    "SELECT count(*) FROM repoctx_search_rows").fetchone()
        return self._sections

    def generated(self, paths: set[str]) -> set[str]:
        """Those of ``paths`` whose document is generated or bundled output."""
        return {p for p in paths if self._verdicts(p, paths)[0]}

    def vendored(self, paths: set[str]) -> set[str]:
        """Those of ``paths`` whose document opens with another project's licence notice
        (``licence_notice``), generated output aside."""
        return {p for p in paths if self._verdicts(p, paths) == (False, True)}

    def _verdicts(self, path: str, paths: set[str]) -> tuple[bool, bool]:
        """``(generated, vendored)`` of ``path``, reading the ends of every unread one
        of ``paths`` when ``path`` is unread."""
        if path not in self._ends:
            self._read_ends([p for p in paths if p not in self._ends])
        return self._ends[path]

    def _read_ends(self, unknown: list[str]) -> None:
        own = self.own_holders()
        for start in range(0, len(unknown), 500):
            chunk = unknown[start : start + 500]
            self._ends.update(dict.fromkeys(chunk, (False, False)))  # prose, or gone
            with sqlite_errors("reading document ends"):
                rows = self.conn.execute(_ENDS.format(marks=", ".join("?" * len(chunk))),
                                         chunk).fetchall()
            for path, head, tail in rows:
                self._ends[path] = (generated.marker(head or "", tail or "") is not None,
                                    foreign_notice((head or "").splitlines(), own))

    def own_holders(self) -> frozenset[str]:
        """Words of the repository's own copyright holder, from the licence file the
        export holds (``licence_notice.LICENCES``), read on first use."""
        if self._holders is None:
            with sqlite_errors("reading the licence"):
                rows = dict(self.conn.execute(_LICENCE.format(
                    marks=", ".join("?" * len(LICENCES))), LICENCES).fetchall())
            text = next((rows[name] for name in LICENCES if name in rows), None)
            self._holders = holder_words(text)
        return self._holders

    def issue_template(self) -> issue_templates.Boilerplate:
        """The boilerplate of the repository's issue templates, read on first use."""
        if self._template is None:
            with sqlite_errors("reading the issue templates"):
                rows = self.conn.execute(_TEMPLATES).fetchall()
            self._template = issue_templates.boilerplate(
                (path, text or "") for path, text in rows
                if issue_templates.is_issue_template(path))
        return self._template

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()


_STATES: dict[str, SearchState] = {}
_LOCK = threading.Lock()


def _ident(path: Path) -> tuple[int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        raise ToolError(f"no ContextPull export at {path}; run `repoctx index` "
                        "(or `repoctx export`) first") from None
    return stat.st_ino, stat.st_mtime_ns


@lru_cache(maxsize=64)
def _key(export: str, cwd: str) -> str:
    """The canonical path of an export, resolved once per spelling and working folder
    (``resolve`` stats every folder on the way); a file replaced there is still caught
    by ``_ident``."""
    return str(Path(cwd, export).resolve())


def search_state(export: Path) -> SearchState:
    """The open state of ``export``, reopened when the file was replaced or rewritten."""
    ident = _ident(export)
    key = _key(os.fspath(export), os.getcwd())
    with _LOCK:
        state = _STATES.get(key)
        if state is not None and state.ident == ident:
            return state
        if state is not None:
            state.close()
        conn = connect_read_only(export)
        with sqlite_errors(f"reading {export}"):
            indexed = has_search_index(conn)
        state = _STATES[key] = SearchState(Path(export), ident, conn, indexed)
        return state


def forget_state(export: Path) -> None:
    """Close and drop the cached state of ``export`` (after rewriting it in place)."""
    with _LOCK:
        state = _STATES.pop(_key(os.fspath(export), os.getcwd()), None)
    if state is not None:
        state.close()
