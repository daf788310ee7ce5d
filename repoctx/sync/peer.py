"""sync/peer — open a peer named on the command line: a store directory, or a URL.

A directory may be a store directory (holding ``lmdb/``) or a repository holding
``.repoctx/``. It is opened in this process under this store's repository id; the
identity checks of ``hello`` still look at what it actually holds. A store of a newer
format is refused before it is opened for writing, naming both versions.
"""

from __future__ import annotations

import os
from pathlib import Path

from repoctx.errors import PeerUnavailableError, SyncRefusedError
from repoctx.store import FORMAT_VERSION, LMDB_DIRNAME, STORE_DIRNAME, Store, has_store, open_store
from repoctx.trees import Trees

from .limits import TOKEN_ENV
from .protocol import OnFinish, Responder, known_repos
from .transport import HttpTransport, LocalTransport, Transport


def store_directory(path: Path) -> Path:
    """The store directory a peer path names; raises ``PeerUnavailableError``."""
    for candidate in (path, path / STORE_DIRNAME):
        if has_store(candidate):
            return candidate.resolve()
    raise PeerUnavailableError(f"no repoctx store at {path} (nor at {path / STORE_DIRNAME})")


def open_peer_store(path: Path, repo_id: str) -> Store:
    """Open the store at ``path`` as a sync peer of a store of ``repo_id``."""
    directory = store_directory(path)
    probe = Trees(directory / LMDB_DIRNAME, readonly=True)
    try:
        found = probe.get_local("format", FORMAT_VERSION)
    finally:
        probe.close()
    if found > FORMAT_VERSION:
        raise SyncRefusedError(
            f"peer {path} has store format {found}, newer than format {FORMAT_VERSION} "
            "that this repoctx reads; upgrade repoctx here first")
    return open_store(directory.parent, repo_id=repo_id, store_dir=directory)


def adopt_repo_id(store: Store) -> Store:
    """Use the one repository a store holds data for, when its id was only derived.

    ``open_store`` derives the id from root nodes, which a store holding only memory or
    session records lacks; the keys themselves name the repository.
    """
    known = known_repos(store)
    if len(known) == 1 and store.repo_id not in known:
        store.repo_id = known[0]
    return store


def open_peer(peer: str, store: Store, *, token: str | None = None,
              on_finish: OnFinish | None = None, cafile: str | None = None) -> Transport:
    """A transport to ``peer`` (``http(s)://HOST:PORT`` or a path) for syncing ``store``."""
    if peer.startswith(("http://", "https://")):
        return HttpTransport(peer, token or os.environ.get(TOKEN_ENV), cafile=cafile)
    directory = store_directory(Path(peer))
    if directory == store.path.resolve():
        raise SyncRefusedError(f"{peer} is this store itself")
    other = open_peer_store(Path(peer), store.repo_id)
    return LocalTransport(Responder(other, on_finish), peer)
