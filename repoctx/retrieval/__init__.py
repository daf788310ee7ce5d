"""retrieval — the read side of the tool surface: search, outline, related, changed,
context bundles, status. Every tool works on a ``Workspace``."""

from .workspace import EXPORT_NAME, Workspace, open_workspace

__all__ = ["EXPORT_NAME", "Workspace", "open_workspace"]
