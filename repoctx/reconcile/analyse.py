"""reconcile/analyse — everything a pass learns from one file's bytes.

Runs in worker processes: reads the file once, hashes it, and (as asked) counts its
tokens, bounds its body and extracts its symbols. Never raises for a bad file: an
unreadable file comes back with ``error`` set, and one whose analysis raised (an
extractor's bug, say) with ``error`` and ``failed`` set, so one file never stops a pass.
Touches no store.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from repoctx.extract import extract, extractor_for, language_of, links_of
from repoctx.reconcile.nodes.content_record import MAX_READ_BYTES, bounded_body, pack_body
from repoctx.reconcile.nodes.symbol_record import Declaration, declarations_of
from repoctx.reconcile.walk import is_binary
from repoctx.tokenizer import count_tokens

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Job:
    """One file to read, and which projections it needs."""

    path: str
    content: bool
    symbols: bool
    known_digest: str | None = None
    """The digest on record: when the bytes still match it, nothing is projected."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """What a read of one file produced."""

    path: str
    size: int = 0
    mtime_ns: int = 0
    digest: str | None = None
    language: str | None = None
    binary: bool = False
    too_large: bool = False
    tokens: int | None = None
    body: bytes | None = None
    """The stored form of the bounded body (``content_record.pack_body``, compressed here, in
    the worker)."""
    links: tuple | None = None
    """``extract.links_of`` the bounded body, as stored (``Links.wire``), for a Python
    file whose content is projected; None otherwise."""
    decls: dict[str, Declaration] | None = None
    """Declarations by fully-qualified name; None when not extracted (not asked, no
    extractor, too large)."""
    error: str | None = None
    failed: bool = False
    """The file was read but analysing it raised (``error`` says what)."""


def analyse(root: str, job: Job) -> Analysis:
    """Read, hash and project the file ``job.path`` under ``root``."""
    try:
        return _analyse(root, job)
    except Exception as exc:  # noqa: BLE001 - one file's failure is reported, never fatal
        return Analysis(job.path, error=f"{type(exc).__name__}: {exc}", failed=True)


def _analyse(root: str, job: Job) -> Analysis:
    try:
        with open(os.path.join(root, job.path), "rb") as handle:
            stat = os.fstat(handle.fileno())
            if stat.st_size > MAX_READ_BYTES:
                return _large(job.path, handle, stat)
            data = handle.read()
    except OSError as exc:
        return Analysis(job.path, error=f"{exc.strerror or exc}")
    language = language_of(job.path)
    base = dict(size=len(data), mtime_ns=stat.st_mtime_ns, language=language,
                digest=hashlib.sha256(data).hexdigest())
    if is_binary(data):
        return Analysis(job.path, binary=True, **base)
    if base["digest"] == job.known_digest:
        return Analysis(job.path, **base)  # touched: same bytes, nothing to re-project
    text = data.decode("utf-8", errors="replace")
    decls = None
    if job.symbols and extractor_for(language) is not None:
        decls = declarations_of(job.path, extract(job.path, text), text)
    if not job.content:
        return Analysis(job.path, decls=decls, **base)
    links = links_of(job.path, bounded_body(text)).wire() if language == "python" else None
    return Analysis(job.path, tokens=count_tokens(text), body=pack_body(text),
                    links=links, decls=decls, **base)


def _large(path: str, handle, stat: os.stat_result) -> Analysis:
    """Hash a file too large to project, in chunks, without holding it in memory."""
    head = handle.read(_CHUNK)
    digest = hashlib.sha256(head)
    while chunk := handle.read(_CHUNK):
        digest.update(chunk)
    return Analysis(path, size=stat.st_size, mtime_ns=stat.st_mtime_ns, digest=digest.hexdigest(),
                    language=language_of(path), binary=is_binary(head), too_large=True)
