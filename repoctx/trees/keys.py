"""trees/keys — the key grammar: build a key, parse it back, route it to its tree.

Keys are ``repo/{repoId}`` (the root node) or ``repo/{repoId}/{family}/{rest}``
(seed 003 "Key grammar"); the family routes the key to its tree. LMDB keys are at
most 511 bytes: a longer key keeps a readable prefix and ends in ``~`` plus 24 hex
digits of the SHA-256 of the full key (the record then carries the full key).
Pure functions.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from repoctx.errors import InvalidKeyError, WrongTreeError

from .spec import BY_FAMILY, ROOT_FAMILY, TreeSpec

MAX_KEY_BYTES = 511
_HASH_SUFFIX = 1 + 24  # "~" + 24 hex digits
_REPO_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class Key:
    """A parsed key: its repository, its family ('' for the root) and the rest."""

    repo_id: str
    family: str
    rest: str


def check_repo_id(repo_id: str) -> str:
    """Return ``repo_id`` if it is a valid slug, else raise ``InvalidKeyError``."""
    if not isinstance(repo_id, str) or not _REPO_ID.fullmatch(repo_id):
        raise InvalidKeyError(
            f"repo id {repo_id!r} must be 1-128 characters of letters, digits, '.', '_' or '-'"
        )
    return repo_id


def make_key(repo_id: str, family: str = ROOT_FAMILY, rest: str = "") -> str:
    """The key of a record: ``repo/{repo_id}`` or ``repo/{repo_id}/{family}/{rest}``."""
    check_repo_id(repo_id)
    if family == ROOT_FAMILY:
        return f"repo/{repo_id}"
    if family not in BY_FAMILY:
        raise InvalidKeyError(f"unknown key family {family!r}")
    if not rest or _CONTROL.search(rest):
        raise InvalidKeyError(f"a {family} key needs a name without control characters")
    return f"repo/{repo_id}/{family}/{rest}"


def family_prefix(repo_id: str, family: str) -> str:
    """The prefix every key of ``family`` in ``repo_id`` starts with."""
    return f"repo/{check_repo_id(repo_id)}/{family}/"


def parse_key(key: str) -> Key:
    """Split a key into repository, family and rest; raises ``InvalidKeyError``."""
    parts = key.split("/", 3)
    if len(parts) < 2 or parts[0] != "repo" or not _REPO_ID.fullmatch(parts[1]):
        raise InvalidKeyError(f"{key!r} is not a repo/{{repoId}}/... key")
    if len(parts) == 2:
        return Key(parts[1], ROOT_FAMILY, "")
    if len(parts) < 4 or not parts[3] or parts[2] not in BY_FAMILY:
        raise InvalidKeyError(f"{key!r} has no known family and name after the repo id")
    return Key(parts[1], parts[2], parts[3])


def tree_of(key: str) -> TreeSpec:
    """The tree that holds ``key``."""
    parts = key.split("/", 3)
    if len(parts) == 4 and parts[0] == "repo" and parts[3]:
        spec = BY_FAMILY.get(parts[2])
        if spec is not None:  # keys made by make_key: no need to re-check the whole grammar
            return spec
    return BY_FAMILY[parse_key(key).family]


def route(key: str, tree: TreeSpec) -> None:
    """Raise ``WrongTreeError`` unless ``key`` (or a key prefix) belongs in ``tree``."""
    parts = key.split("/", 3)
    family = parts[2] if len(parts) > 2 else ROOT_FAMILY
    if len(parts) > 1 and parts[1] and family not in tree.families:
        raise WrongTreeError(f"{key!r} belongs to family {family!r}, not in tree {tree.name}")


def lmdb_key(key: str) -> bytes:
    """The LMDB key for ``key``: itself, or a readable prefix plus a hash when too long."""
    raw = key.encode()
    if len(raw) <= MAX_KEY_BYTES:
        return raw
    digest = hashlib.sha256(raw).hexdigest()[:24]
    prefix = raw[: MAX_KEY_BYTES - _HASH_SUFFIX].decode(errors="ignore").encode()
    return prefix + b"~" + digest.encode()


def may_be_hashed(lkey: bytes) -> bool:
    """Whether an LMDB key may be ``lmdb_key``'s hashed form of a longer key (whose record
    then holds the full key): as long as the limit, less a cut UTF-8 character, with the
    hash suffix's ``~`` in place. A key of that shape may also be a plain one."""
    return len(lkey) >= MAX_KEY_BYTES - 3 and lkey[-_HASH_SUFFIX] == ord("~")

