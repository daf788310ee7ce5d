"""`contextpull/sections/sectioning` — pick the sectioning rules for a document and apply them.

Pure; no I/O. Code (definitions given, or a known code language), Markdown (``.md``,
``.markdown``), JSON (``.json``; invalid JSON falls back to plain text), plain text
(``.txt``) and other text each have their own module; this one only dispatches.
"""

from __future__ import annotations

from repoctx.contextpull.sections.code import section_code
from repoctx.contextpull.sections.documents import (
    Sectioned,
    SourceDocument,
    decode_text,
    document_kind,
)
from repoctx.contextpull.sections.jsondoc import section_json
from repoctx.contextpull.sections.markdown import section_markdown, section_plain_text
from repoctx.contextpull.sections.othertext import section_other_text


def section_document(document: SourceDocument, max_chars: int) -> Sectioned:
    """Section one document under the rules of its kind."""
    kind = document_kind(document)
    text = decode_text(document.data)
    if kind == "code":
        return section_code(document.path, text, document.definitions or (), max_chars)
    if kind == "markdown":
        return section_markdown(document.path, text, max_chars)
    if kind == "json":
        sectioned = section_json(document.path, text, max_chars)
        if sectioned is not None:
            return sectioned
        return section_plain_text(document.path, text, max_chars)
    if kind == "text":
        return section_plain_text(document.path, text, max_chars)
    return section_other_text(document.path, text, max_chars)
