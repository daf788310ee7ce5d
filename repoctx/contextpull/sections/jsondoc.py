"""`contextpull/sections/jsondoc` — section JSON documents by key path.

Pure; no I/O. A document that fits the size limit is one section, verbatim. Otherwise
objects are walked key by key (``heading_path`` ``a > b > c``), consecutive small members
batched into one section; arrays are batched into runs of items under the limit, each
run titled by its items' identity field (``id``, ``name``, ``title``, ``key``, ``slug``)
when they have one, else by its index range ``[i-j]``. Invalid JSON returns ``None``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from repoctx.contextpull.sections.blocks import Block
from repoctx.contextpull.sections.documents import Sectioned
from repoctx.contextpull.sections.merge import Draft
from repoctx.contextpull.sections.split import split_prose

IDENTITY_FIELDS = ("id", "name", "title", "key", "slug")
_LABEL_MAX_CHARS = 80


def render(value: Any) -> str:
    """Pretty JSON text as sections store it."""
    return json.dumps(value, indent=2, ensure_ascii=False)


def identity(item: Any) -> str | None:
    """The item's identity field value as text, or ``None``."""
    if not isinstance(item, dict):
        return None
    for name in IDENTITY_FIELDS:
        value = item.get(name)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            return str(value)
    return None


def batch_label(items: list[Any], first_index: int) -> str:
    """Title of a run of array items: their identities, else ``[i-j]``."""
    names = [identity(item) for item in items]
    if names and all(name is not None for name in names):
        label = ", ".join(name for name in names if name is not None)
        if len(label) <= _LABEL_MAX_CHARS:
            return label
        return f"{names[0]} … {names[-1]}"
    last = first_index + len(items) - 1
    return f"[{first_index}]" if last == first_index else f"[{first_index}-{last}]"


class _JsonSectioner:
    def __init__(self, root: str, max_chars: int) -> None:
        self.root = root
        self.max_chars = max_chars

    def draft(self, keys: tuple[str, ...], text: str) -> Draft:
        heading = " > ".join(keys) or self.root
        return Draft(heading, len(keys), (Block("code", text, 1, 1),))

    def value(self, keys: tuple[str, ...], value: Any, text: str) -> Iterator[Draft]:
        if len(text) <= self.max_chars:
            yield self.draft(keys, text)
        elif isinstance(value, dict):
            yield from self.members(keys, value)
        elif isinstance(value, list):
            yield from self.items(keys, value)
        else:
            for piece in split_prose(Block("prose", text, 1, 1), self.max_chars, self.max_chars):
                yield self.draft(keys, piece.text)

    def members(self, keys: tuple[str, ...], obj: dict[str, Any]) -> Iterator[Draft]:
        batch: dict[str, Any] = {}
        for key, child in obj.items():
            if len(render({**batch, key: child})) <= self.max_chars:
                batch[key] = child
                continue
            yield from self._flush_members(keys, batch)
            batch = {}
            if len(render({key: child})) <= self.max_chars:
                batch[key] = child
            else:
                yield from self.value((*keys, key), child, render(child))
        yield from self._flush_members(keys, batch)

    def _flush_members(self, keys: tuple[str, ...], batch: dict[str, Any]) -> Iterator[Draft]:
        if batch:
            path = (*keys, next(iter(batch))) if len(batch) == 1 else keys
            yield self.draft(path, render(batch))

    def items(self, keys: tuple[str, ...], array: list[Any]) -> Iterator[Draft]:
        batch: list[Any] = []
        first = 0
        for index, item in enumerate(array):
            if len(render([*batch, item])) <= self.max_chars:
                batch.append(item)
                continue
            yield from self._flush_items(keys, batch, first)
            batch, first = [], index
            if len(render([item])) <= self.max_chars:
                batch.append(item)
            else:
                first = index + 1
                label = identity(item) or f"[{index}]"
                yield from self.value((*keys, label), item, render(item))
        yield from self._flush_items(keys, batch, first)

    def _flush_items(self, keys: tuple[str, ...], batch: list[Any], first: int) -> Iterator[Draft]:
        if batch:
            yield self.draft((*keys, batch_label(batch, first)), render(batch))


def section_json(path: str, text: str, max_chars: int) -> Sectioned | None:
    """Section a JSON document, or ``None`` when ``text`` is not valid JSON."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    sectioner = _JsonSectioner(path, max_chars)
    stripped = text.strip()
    drafts = sectioner.value((), value, stripped) if stripped else iter(())
    sections = tuple(
        replace(d.to_section(), start_line=None, end_line=None) for d in drafts
    )  # key paths have no reliable line span
    return Sectioned(PurePosixPath(path).name, "json", sections)
