"""errors — the one exception hierarchy of repoctx.

Every error a user can meet derives from ``RepoctxError``; the edges (``cli.py``,
``server/``) turn it into a one-line message or a tool error, never a traceback.
This module imports nothing, so every layer (``crdt/`` included) may use it.

    RepoctxError
    ├── CrdtError
    │   ├── InvalidEncodingError      bytes that are not a value of the type
    │   ├── UnsupportedVersionError   an encoding or schema version this build cannot read
    │   └── PreconditionError         an operation whose precondition fails
    ├── StoreError
    │   ├── StoreFormatError          a store written by a newer format, or not a store
    │   ├── StoreBusyError            another indexer holds the store
    │   │   └── StoreReplacedError    a handle on a store a repair has since replaced
    │   ├── StoreMissingError         a repository that was never indexed
    │   ├── StoreReadOnlyError        a write to a store opened read-only
    │   ├── StoreIOError              the disk refused (full, unreadable, permissions)
    │   │   └── DiskFullError         no space (or quota) left on the disk holding a path
    │   ├── WrongTreeError            a key routed to a tree that does not hold its family
    │   ├── InvalidKeyError           a key outside the key grammar
    │   └── CorruptRecordError        a stored value that does not decode
    ├── GitError                      git that cannot answer (missing, failed, timed out)
    │   ├── NotAGitRepositoryError    a folder git does not know as part of a repository
    │   └── UnknownRevisionError      a revision git cannot name, or one that is no commit
    ├── ReconcileError                a pass that cannot complete
    │   └── CoverageDataError         a coverage data file that cannot be read
    ├── SyncError
    │   ├── SyncRefusedError          a peer of a newer format, another repo, a bad token
    │   ├── PeerUnavailableError      a peer that cannot be reached or went away midway
    │   └── SyncRequestError          a request sync-serve answers with an HTTP error status
    ├── EmbedderError                 an embedder that cannot load or failed to embed
    ├── ContextPullError
    │   ├── NotAStoreError            missing file, not SQLite, no meta
    │   ├── SchemaVersionError        a store of another major version
    │   └── Fts5UnavailableError      the SQLite binding lacks FTS5 or the table
    └── ToolError                     bad arguments or unknown ids given to a tool
        ├── NotIndexedError           a tool called on a repository with no index
        └── CallTimeoutError          a call stopped past its deadline, or cancelled
"""

from __future__ import annotations


class RepoctxError(Exception):
    """Base of every error repoctx raises on purpose."""


class CrdtError(RepoctxError):
    """An error of the CRDT layer."""


class InvalidEncodingError(CrdtError):
    """Bytes that are not an encoding of the expected CRDT type."""


class UnsupportedVersionError(CrdtError):
    """An encoding or schema version this build does not know how to read."""


class PreconditionError(CrdtError):
    """An operation was asked for in a state where it cannot apply."""


class StoreError(RepoctxError):
    """An error of the LMDB store."""


class StoreFormatError(StoreError):
    """The directory holds no store of a format this build can open."""


class StoreBusyError(StoreError):
    """Another process holds the store for writing."""


class StoreReplacedError(StoreBusyError):
    """The store was rebuilt and swapped in after this handle opened it: writing
    through the handle would reach the discarded copy."""


class StoreMissingError(StoreError):
    """No store where one was expected: the repository was never indexed."""


class StoreReadOnlyError(StoreError):
    """A write to a store that this process can only read (read-only disk, permissions)."""


class StoreIOError(StoreError):
    """The disk or the LMDB engine refused an operation."""


class DiskFullError(StoreIOError):
    """No space, or no quota, left on the disk holding the store or its export."""

    @classmethod
    def holding(cls, path: object) -> DiskFullError:
        """The error for the disk that holds ``path``."""
        return cls(f"no space left on the disk holding {path} (free some space and run "
                   "again)")


DISK_FULL_ERRNOS = frozenset({28, 122})
"""``ENOSPC`` and ``EDQUOT`` (Linux numbers; this module imports nothing)."""


def disk_full(exc: BaseException, path: object) -> DiskFullError | None:
    """A ``DiskFullError`` for ``path`` when ``exc`` is the disk running out of space
    (or quota), else None."""
    if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
        return DiskFullError.holding(path)
    return None


class WrongTreeError(StoreError):
    """A key was sent to a tree that does not hold its family."""


class InvalidKeyError(StoreError):
    """A key that does not follow the key grammar."""


class CorruptRecordError(StoreError):
    """A stored value that does not decode; names the tree and the key, and what to do."""

    HINT = "run `repoctx check` to see all damage and `repoctx repair` to rebuild the store"

    def __init__(self, tree: str, key: str, reason: str) -> None:
        super().__init__(f"corrupt record {key!r} in tree {tree}: {reason}; {self.HINT}")
        self.tree = tree
        self.key = key
        self.reason = reason

    def __reduce__(self) -> tuple:
        # Raised in a worker process (a search build decodes symbols there): pickled
        # with the arguments its __init__ takes.
        return (type(self), (self.tree, self.key, self.reason))


class GitError(RepoctxError):
    """A git command that could not run or failed."""


class NotAGitRepositoryError(GitError):
    """A folder that is not inside a git working tree."""


class UnknownRevisionError(GitError):
    """A revision git does not know, or one that does not name a commit."""


class ReconcileError(RepoctxError):
    """A reconcile pass that cannot complete."""


class CoverageDataError(ReconcileError):
    """A coverage.py data file that cannot be read (the pass goes on without it)."""


class SyncError(RepoctxError):
    """An error of replica exchange."""


class SyncRefusedError(SyncError):
    """A peer this store must not exchange with (format, repository, replica id, token)."""


class PeerUnavailableError(SyncError):
    """A peer that cannot be reached, or that went away in the middle of an exchange."""


class SyncRequestError(SyncError):
    """A request ``sync-serve`` answers with HTTP ``status`` (token, size, length, slowness)."""

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(message)
        self.status, self.error = status, error


class EmbedderError(RepoctxError):
    """An embedder that cannot be loaded or that failed to embed."""


class ContextPullError(RepoctxError):
    """An error opening or reading a ContextPull store."""


class NotAStoreError(ContextPullError):
    """The file is missing, is not SQLite, or has no ContextPull meta table."""


class SchemaVersionError(ContextPullError):
    """The store's schema major version differs from the reader's."""


class Fts5UnavailableError(ContextPullError):
    """FTS5 is missing from the SQLite binding, or the FTS table is missing."""


class ToolError(RepoctxError):
    """A tool was called with bad arguments or an unknown id."""


class NotIndexedError(ToolError):
    """A tool was called on a repository that has no index yet."""


class CallTimeoutError(ToolError):
    """A tool call stopped at its deadline (or cancelled because its caller went away)."""
