"""trees/spec — the named trees of a store and the options each one carries.

One LMDB named database per record family (DESIGN.md §2, seed 003 "Named trees").
The family segment of a key routes it to its tree. The high-churn trees carry a
finite tombstone grace period and a compaction trigger; the write-once vector
payload tree carries neither. Only the symbol tree wraps values in a schema-version
envelope. The vector index, vector coverage and test coverage trees are derived and never
replicated.
Pure declarations.
"""

from __future__ import annotations

from dataclasses import dataclass

HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS


@dataclass(frozen=True, slots=True)
class TreeSpec:
    """A named tree: which key families it holds and how it is kept."""

    name: str
    families: tuple[str, ...]
    grace_ms: int | None = DAY_MS
    """How long a tombstone or expired record is kept before compaction reaps it."""
    compaction_trigger: int | None = 50_000
    """Tombstones and expiring records written to the tree after which compaction runs on
    its own. Other writes leave nothing to reap, so they never make a big tree rescan."""
    envelope: tuple[int, int] | None = None
    """``(schema family, version)`` when values carry a ``$schema`` envelope."""
    replicated: bool = True
    compress: bool = False
    """Whether records are stored zlib-compressed where it pays (``codec.pack``). Off for
    trees whose values are already compressed (content bodies) or are numbers (vectors)."""


ROOT_FAMILY = ""  # the repo root node, key ``repo/{repoId}``

TREES: tuple[TreeSpec, ...] = (
    TreeSpec("repo-context-structural", (ROOT_FAMILY, "pkg", "file"), compress=True),
    TreeSpec("repo-context-symbol", ("symbol",), envelope=(1, 1), compress=True),
    TreeSpec("repo-context-content", ("content",)),
    TreeSpec("repo-context-xref", ("xref",), compress=True),
    TreeSpec("repo-context-memory", ("mem",), grace_ms=7 * DAY_MS, compress=True),
    TreeSpec("repo-context-session", ("session",), grace_ms=HOUR_MS, compaction_trigger=5_000,
             compress=True),
    TreeSpec("repo-context-vector-membership", ("vmem",)),
    TreeSpec("repo-context-vector-payload", ("vpay",), grace_ms=None, compaction_trigger=None),
    TreeSpec("repo-context-vector-metadata", ("vec",)),
    TreeSpec("repo-context-vector-index", ("vidx",), replicated=False),
    TreeSpec("repo-context-vector-coverage", ("vcov",), replicated=False),
    TreeSpec("repo-context-coverage", ("coverage",), replicated=False, compress=True),
)

LOCAL_TREE = "repo-context-local"
"""Store-local state (replica id, clock, checkpoints): never replicated, never exported."""
REAPABLE_WRITES = "writes-since-compaction"  # (the name of when every write counted)
"""Store-local map: tree name -> tombstones and expiring records written since it was
last compacted (``compaction_trigger``)."""
GENERATIONS = "tree-generations"
"""Store-local map: tree name -> record-writing batches that touched it (never reset)."""

BY_NAME: dict[str, TreeSpec] = {t.name: t for t in TREES}
BY_FAMILY: dict[str, TreeSpec] = {f: t for t in TREES for f in t.families}
