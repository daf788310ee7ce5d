"""tools — the tool surface: every ``repocontext_*`` tool and ContextPull's, their
specs, input and output schemas, argument checks and dispatch.

One registry serves the three doors (Python API, ``repoctx call``, MCP)."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from .registry import call, find_tool, serialize, tools
    from .spec import Tool

__all__ = [
    "Tool",
    "call",
    "find_tool",
    "serialize",
    "tools",
]

export_lazily(__name__, {
    ".registry": ("call", "find_tool", "serialize", "tools"),
    ".spec": ("Tool",),
})
