"""trees/keys — the key grammar: build a key, parse it back, route it to its tree.

Keys are ``repo/{repoId}`` (the root node) or ``repo/{repoId}/{family}/{rest}``
(seed 003 "Key grammar"); the family routes the key to its tree. LMDB keys are at
most 511 bytes: a longer key keeps a readable prefix and ends in ``~`` plus 24 hex
digits of the SHA-256 of the full key (the record then carries the full key).

Names (the part after the family) are data: a file name may hold any character a
file system allows. What the grammar cannot hold is percent-escaped, reversibly, by
``escape_name`` (``make_key``) and undone by ``unescape_name`` (``parse_key``):

- a control character (U+0000-U+001F, U+007F) becomes ``%XX`` (two upper-case hex
  digits of its code point);
- a lone surrogate U+DC80-U+DCFF (``os.fsdecode``'s stand-in for an undecodable byte)
  becomes ``%XX`` of that byte (80-FF), so such a name still encodes as UTF-8;
- a ``%`` followed by two hex digits becomes ``%25``, so an escape is never mistaken
  for a name that already looked like one. Any other ``%`` stays as it is.

Every name without control characters, stand-in bytes or ``%XX`` look-alikes is its
own escape, so the keys of ordinary names are what they always were.
Pure functions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repoctx.errors import InvalidKeyError, WrongTreeError

from .spec import BY_FAMILY, ROOT_FAMILY, TreeSpec

MAX_KEY_BYTES = 511
_HASH_SUFFIX = 1 + 24  # "~" + 24 hex digits
_REPO_ID = re.compile(r"[A-Za-z0-9._-]{1,128}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_TO_ESCAPE = re.compile(r"[\x00-\x1f\x7f\udc80-\udcff]|%(?=[0-9A-Fa-f]{2})")
_ESCAPED = re.compile(r"%([0-9A-F]{2})")


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


def _escape_one(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    return f"%{code - 0xDC00 if 0xDC80 <= code <= 0xDCFF else code:02X}"


def escape_name(name: str) -> str:
    """``name`` as the key grammar holds it (see the module docstring); reversible."""
    if "%" not in name and name.isprintable():  # the common name, at a fifth of the cost
        return name
    return _TO_ESCAPE.sub(_escape_one, name)


def _unescape_one(match: re.Match[str]) -> str:
    code = int(match.group(1), 16)
    if code < 0x20 or code == 0x7F:
        return chr(code)
    if code >= 0x80:
        return chr(0xDC00 + code)
    if code == 0x25:
        return "%"
    return match.group()  # never made by escape_name: left as it is


def unescape_name(escaped: str) -> str:
    """The name ``escape_name`` turned into ``escaped``."""
    return _ESCAPED.sub(_unescape_one, escaped) if "%" in escaped else escaped


def make_key(repo_id: str, family: str = ROOT_FAMILY, rest: str = "") -> str:
    """The key of a record: ``repo/{repo_id}`` or ``repo/{repo_id}/{family}/{rest}``,
    with ``rest`` escaped (``escape_name``) where the grammar cannot hold it."""
    check_repo_id(repo_id)
    if family == ROOT_FAMILY:
        return f"repo/{repo_id}"
    if family not in BY_FAMILY:
        raise InvalidKeyError(f"unknown key family {family!r}")
    if not rest:
        raise InvalidKeyError(f"a {family} key needs a name")
    return f"repo/{repo_id}/{family}/{escape_name(rest)}"


def family_prefix(repo_id: str, family: str) -> str:
    """The prefix every key of ``family`` in ``repo_id`` starts with."""
    return f"repo/{check_repo_id(repo_id)}/{family}/"


def key_name(key: str) -> str:
    """The name a family key was made from (``make_key``'s ``rest``, unescaped), for a key
    known to be in the grammar, such as one a scan returned: cheaper than ``parse_key``,
    which checks the grammar. Every reader of a key's tail goes through here or there."""
    return unescape_name(key.split("/", 3)[3])


def parse_key(key: str) -> Key:
    """Split a key into repository, family and rest (unescaped: the name ``make_key``
    was given); raises ``InvalidKeyError``."""
    parts = key.split("/", 3)
    if len(parts) < 2 or parts[0] != "repo" or not _REPO_ID.fullmatch(parts[1]):
        raise InvalidKeyError(f"{key!r} is not a repo/{{repoId}}/... key")
    if len(parts) == 2:
        return Key(parts[1], ROOT_FAMILY, "")
    if len(parts) < 4 or not parts[3] or parts[2] not in BY_FAMILY:
        raise InvalidKeyError(f"{key!r} has no known family and name after the repo id")
    if _CONTROL.search(parts[3]):
        raise InvalidKeyError(f"{key!r} holds a control character its name should escape")
    return Key(parts[1], parts[2], unescape_name(parts[3]))


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
    import hashlib  # here: a short key (nearly all) needs no OpenSSL load

    digest = hashlib.sha256(raw).hexdigest()[:24]
    prefix = raw[: MAX_KEY_BYTES - _HASH_SUFFIX].decode(errors="ignore").encode()
    return prefix + b"~" + digest.encode()


def may_be_hashed(lkey: bytes) -> bool:
    """Whether an LMDB key may be ``lmdb_key``'s hashed form of a longer key (whose record
    then holds the full key): as long as the limit, less a cut UTF-8 character, with the
    hash suffix's ``~`` in place. A key of that shape may also be a plain one."""
    return len(lkey) >= MAX_KEY_BYTES - 3 and lkey[-_HASH_SUFFIX] == ord("~")

