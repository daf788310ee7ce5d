"""Fixtures for the contextpull tests: the exported conformance corpus and raw stores."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from repoctx.contextpull import Reader, export_directory

CONFORMANCE = Path(__file__).parent / "conformance"
"""The project's copy of the ContextPull conformance suite (``corpus/``, ``cases.json``)."""

RAW_DDL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,
  title TEXT NOT NULL, summary TEXT, summary_src TEXT, sha256 TEXT NOT NULL,
  bytes INTEGER NOT NULL, kind TEXT NOT NULL, n_sections INTEGER NOT NULL,
  ingested_at TEXT NOT NULL);
CREATE TABLE sections(id TEXT PRIMARY KEY, doc_id INTEGER NOT NULL, ordinal INTEGER NOT NULL,
  heading_path TEXT NOT NULL, level INTEGER NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
  char_len INTEGER NOT NULL, hash TEXT NOT NULL, prev_id TEXT, next_id TEXT,
  UNIQUE(doc_id, ordinal));
CREATE VIRTUAL TABLE sections_fts USING fts5(id UNINDEXED, heading_path, text,
  tokenize = "unicode61 remove_diacritics 2 tokenchars '-_.'");
CREATE TABLE embeddings(section_id TEXT PRIMARY KEY, model TEXT NOT NULL, dim INTEGER NOT NULL,
  vec BLOB NOT NULL);
CREATE TABLE summary_cache(sha256 TEXT PRIMARY KEY, model TEXT NOT NULL, summary TEXT NOT NULL);
"""

# (heading_path, kind, text) per section; documents as {path: [sections]}.
RawDocs = dict[str, Sequence[tuple[str, str, str]]]


def _strip_token_edges(text: str) -> str:
    """The contract's ingest normalisation, written independently of the package."""
    return re.sub(r"[\w.\-]+", lambda m: m.group(0).strip("-_."), text)


def build_raw_store(
    path: Path,
    docs: RawDocs,
    *,
    schema_version: str | None = "1.0",
    with_fts: bool = True,
    normalise: bool = True,
) -> Path:
    """A store written with raw SQL, as another ContextPull writer would."""
    conn = sqlite3.connect(path)
    for statement in RAW_DDL.split(";"):
        if statement.strip() and (with_fts or "fts5" not in statement):
            conn.execute(statement)
    fts = _strip_token_edges if normalise else (lambda t: t)
    for doc_id, (doc, sections) in enumerate(sorted(docs.items()), start=1):
        conn.execute(
            "INSERT INTO documents VALUES (?, ?, ?, NULL, NULL, ?, 0, 'markdown', ?, 'x')",
            (doc_id, doc, doc, hashlib.sha256(doc.encode()).hexdigest(), len(sections)),
        )
        ids = [f"{doc}#{n}" for n in range(len(sections))]
        for n, (heading, kind, text) in enumerate(sections):
            prev_id = ids[n - 1] if n else None
            next_id = ids[n + 1] if n + 1 < len(ids) else None
            conn.execute(
                "INSERT INTO sections VALUES (?, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?)",
                (ids[n], doc_id, n, heading, kind, text, len(text),
                 hashlib.sha256(text.encode()).hexdigest(), prev_id, next_id),
            )  # fmt: skip
            if with_fts:
                conn.execute(
                    "INSERT INTO sections_fts VALUES (?, ?, ?)", (ids[n], fts(heading), fts(text))
                )
    meta = {"index_text": "ContextPull index · raw", "index_mode": "flat", "index_tokens": "5",
            "corpus_fingerprint": "0" * 16}  # fmt: skip
    if schema_version is not None:
        meta["schema_version"] = schema_version
    conn.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    conn.commit()
    conn.close()
    return path


@pytest.fixture
def raw_store(tmp_path: Path) -> Callable[..., Path]:
    """Build a raw store in ``tmp_path``: ``raw_store(docs, **options)``."""

    def build(docs: RawDocs, **options: object) -> Path:
        return build_raw_store(tmp_path / "raw.db", docs, **options)  # type: ignore[arg-type]

    return build


@pytest.fixture(scope="session")
def corpus_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The conformance corpus exported once per session."""
    out = tmp_path_factory.mktemp("corpus") / "contextpull.db"
    export_directory(CONFORMANCE / "corpus", out)
    return out


@pytest.fixture
def corpus_reader(corpus_store: Path) -> Reader:
    """A reader over the exported conformance corpus."""
    with Reader(corpus_store) as reader:
        yield reader
