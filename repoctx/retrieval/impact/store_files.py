"""retrieval/impact/store_files — the indexed files as the ``extract.Files`` an import
resolver consults (existence from file nodes, text from the stored bodies), and what a
stored file imports, binds and re-exports (``extract.Links``: the content record's, else
read from its stored body, each part alone, as an older store or another language needs).
"""

from __future__ import annotations

from repoctx.extract import Imported, bindings_of, imports_in, reexports_in
from repoctx.retrieval.workspace import Workspace
from repoctx.trees import family_prefix, key_name


def written_imports(ws: Workspace, path: str) -> tuple[Imported, ...]:
    """``Links.imports`` of the stored file ``path``."""
    stored = ws.links(path)
    return stored.imports if stored is not None else imports_in(path, ws.body(path) or "")


def bindings(ws: Workspace, path: str) -> dict[str, str]:
    """``Links.bindings`` of the stored Python file ``path``, as a mapping."""
    stored = ws.links(path)
    return dict(stored.bindings) if stored is not None else bindings_of(path, ws.body(path) or "")


def reexports(ws: Workspace, path: str) -> bool:
    """``Links.reexports`` of the stored file ``path``."""
    stored = ws.links(path)
    return stored.reexports if stored is not None else reexports_in(ws.body(path) or "")


class StoreFiles:
    """The indexed files, as an import resolver of ``extract`` consults them."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws

    def exists(self, path: str) -> bool:
        """True if the store indexes ``path``."""
        return path in self.ws.indexed()

    def read(self, path: str) -> str | None:
        """The stored body of ``path``."""
        return self.ws.body(path)

    def listdir(self, directory: str) -> tuple[str, ...]:
        """The indexed files directly inside ``directory`` ('' is the root)."""
        prefix = f"{directory}/" if directory else ""
        # the family prefix, not ``store.key``: a key needs a name, and the root has none
        keys = self.ws.store.trees.scan(family_prefix(self.ws.store.repo_id, "file") + prefix)
        names = (key_name(key) for key, _ in keys)
        return tuple(name for name in names if "/" not in name[len(prefix):])
