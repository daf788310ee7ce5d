"""trees — the LMDB environment, the named trees, the key grammar, read-merge-write,
tombstone and expiry hiding, compaction and backup. Knows nothing of files, symbols
or memory: records are opaque CRDT records keyed by the key grammar.

The exports are imported on first use (``repoctx.lazy``): a no-op ``repoctx index`` opens
the store without the integrity check, salvage, backup and compaction modules.
"""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import changelog
    from .backup import BackupReport
    from .batch import Batch
    from .compaction import compact
    from .data_file import DATA_FILE, REPAIR_HINT
    from .integrity import Damage, TreeCheck, check_directory, check_trees
    from .keys import (
        MAX_KEY_BYTES,
        Key,
        check_repo_id,
        escape_name,
        family_prefix,
        key_name,
        lmdb_key,
        make_key,
        parse_key,
        route,
        tree_of,
        unescape_name,
    )
    from .lmdb_env import DEFAULT_MAP_SIZE, error_for, lmdb_errors
    from .salvage import Copied, Salvage
    from .spec import BY_FAMILY, BY_NAME, LOCAL_TREE, ROOT_FAMILY, TREES, TreeSpec
    from .trees import Snapshot, Trees, TreeStats, check_stored, decode_stored
    from .visibility import reapable, visible

__all__ = [
    "BY_FAMILY",
    "BY_NAME",
    "BackupReport",
    "Batch",
    "Copied",
    "DATA_FILE",
    "DEFAULT_MAP_SIZE",
    "Damage",
    "Key",
    "LOCAL_TREE",
    "MAX_KEY_BYTES",
    "REPAIR_HINT",
    "ROOT_FAMILY",
    "Salvage",
    "Snapshot",
    "TREES",
    "TreeCheck",
    "TreeSpec",
    "TreeStats",
    "Trees",
    "changelog",
    "check_directory",
    "check_repo_id",
    "check_stored",
    "check_trees",
    "compact",
    "decode_stored",
    "error_for",
    "escape_name",
    "family_prefix",
    "key_name",
    "lmdb_errors",
    "lmdb_key",
    "make_key",
    "parse_key",
    "reapable",
    "route",
    "tree_of",
    "unescape_name",
    "visible",
]

export_lazily(__name__, {
    ".backup": ("BackupReport",),
    ".batch": ("Batch",),
    ".compaction": ("compact",),
    ".data_file": ("DATA_FILE", "REPAIR_HINT"),
    ".integrity": ("Damage", "TreeCheck", "check_directory", "check_trees"),
    ".keys": ("MAX_KEY_BYTES", "Key", "check_repo_id", "escape_name", "family_prefix",
              "key_name", "lmdb_key", "make_key", "parse_key", "route", "tree_of",
              "unescape_name"),
    ".lmdb_env": ("DEFAULT_MAP_SIZE", "error_for", "lmdb_errors"),
    ".salvage": ("Copied", "Salvage"),
    ".spec": ("BY_FAMILY", "BY_NAME", "LOCAL_TREE", "ROOT_FAMILY", "TREES", "TreeSpec"),
    ".trees": ("Snapshot", "Trees", "TreeStats", "check_stored", "decode_stored"),
    ".visibility": ("reapable", "visible"),
}, modules=("changelog",))
