"""`contextpull/sections/documents` — what the writer takes in and what sectioning gives back.

Pure; no I/O. A :class:`SourceDocument` is one file's bytes plus what the caller knows of
it (code definitions, language, token count); a :class:`Section` is one row-to-be of the
``sections`` table, before ids and chains are assigned.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CODE_LANGUAGES = frozenset(
    {
        "bash", "c", "cpp", "csharp", "go", "java", "javascript", "kotlin", "lua", "php",
        "python", "ruby", "rust", "scala", "shell", "swift", "typescript",
    }
)  # fmt: skip
_LANGUAGE_BY_SUFFIX = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".mjs": "javascript",
    ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".go": "go",
    ".rs": "rust", ".java": "java", ".kt": "kotlin", ".c": "c", ".h": "c", ".cc": "cpp",
    ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp", ".rb": "ruby", ".php": "php",
    ".swift": "swift", ".scala": "scala", ".lua": "lua", ".sh": "shell", ".bash": "bash",
}  # fmt: skip
_MARKDOWN_SUFFIXES = frozenset({".md", ".markdown"})


@dataclass(frozen=True)
class Definition:
    """A definition in a code document: 1-based inclusive line span, nested children."""

    name: str
    kind: str
    start_line: int
    end_line: int
    children: tuple[Definition, ...] = ()


@dataclass(frozen=True)
class SourceDocument:
    """One document to export: its POSIX relative path, its bytes, and caller knowledge.

    ``definitions`` (top-level, in any order) makes the document a code document;
    ``language`` and ``tokens`` are recorded in the ``repoctx_documents`` side table
    (``tokens`` only as given: the writer counts nothing, so a missing count is NULL);
    ``sha256`` (hex of ``data``, trusted) saves hashing the bytes again when the caller
    already did; ``mtime_ns`` is the file's mtime by a stat taken before ``data`` was read,
    recorded beside ``language`` so a later export may trust it (``contextpull/write/files``).
    """

    path: str
    data: bytes
    definitions: tuple[Definition, ...] | None = None
    language: str | None = None
    tokens: int | None = None
    sha256: str | None = None
    mtime_ns: int | None = None


@dataclass(frozen=True)
class Section:
    """One section before ids are assigned; ``start_line``/``end_line`` are 1-based.

    ``start_line``, ``end_line``, ``tokens`` and ``symbol`` go to the ``repoctx_sections``
    side table (``tokens`` is only ever carried over from an older export).
    """

    heading_path: str
    level: int
    kind: str
    text: str
    start_line: int | None = None
    end_line: int | None = None
    tokens: int | None = None
    symbol: str | None = None


@dataclass(frozen=True)
class Sectioned:
    """A document after sectioning: its title, document kind, and sections in order."""

    title: str
    kind: str
    sections: tuple[Section, ...]
    front_matter: dict[str, str] = field(default_factory=dict)


def suffix_of(path: str) -> str:
    """``PurePosixPath(path).suffix``, without building a path object (asked per document)."""
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def language_for(path: str) -> str | None:
    """The code language known for ``path``'s suffix, or ``None``."""
    return _LANGUAGE_BY_SUFFIX.get(suffix_of(path).lower())


def document_kind(document: SourceDocument) -> str:
    """``code``, ``markdown``, ``json``, ``text`` (``.txt``) or ``other`` for other text."""
    suffix = suffix_of(document.path).lower()
    language = document.language or language_for(document.path)
    if document.definitions is not None or (language or "").lower() in CODE_LANGUAGES:
        return "code"
    if suffix in _MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix == ".json":
        return "json"
    if suffix == ".txt":
        return "text"
    return "other"


def decode_text(data: bytes) -> str:
    """Decode document bytes as UTF-8 (BOM dropped, bad bytes replaced), LF line ends."""
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")
