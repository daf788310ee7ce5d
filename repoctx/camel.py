"""camel — the camelCase keys every JSON answer uses, from Python's snake_case names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def camel(name: str) -> str:
    """``gap_rows`` -> ``gapRows`` (a name without ``_`` is kept)."""
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def camel_keys(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``fields`` with each top-level key in camelCase (the values are kept as they are)."""
    return {camel(key): value for key, value in fields.items()}
