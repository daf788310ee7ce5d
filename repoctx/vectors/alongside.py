"""vectors/alongside — the back-fill in its own process, beside the export.

Embedding after the export would add the back-fill's time to ``repoctx index``; the export needs
nothing the back-fill writes (its ``embeddings`` table comes from the embedder, and
its freshness from the file, symbol and content trees only), and on Django it keeps
about one core busy. ``start`` runs ``backfill`` in a fresh interpreter (spawned, never
forked: an LMDB environment must not cross a fork) that opens the same store and sends
its report back; ``Alongside.wait`` returns it. The child is a plain ``python -c`` (no
``multiprocessing``: a spawned child re-runs the ``repoctx`` script, importing the whole
CLI, before its first line of work). The child's batches commit as they go,
exactly as in process, so a killed index resumes from the coverage digest; a child that
dies is reported as the back-fill's ``error`` and never fails the index.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

from repoctx.reconcile.workers import die_with_parent
from repoctx.store import Store
from repoctx.vectors.backfill import BackfillReport


@dataclass
class Alongside:
    """A back-fill running in a child process."""

    process: subprocess.Popen[bytes]
    conn: BinaryIO
    """The read end of the pipe the child writes its report to."""
    embedder: str
    started: float

    def wait(self) -> BackfillReport:
        """The child's report once it has finished (an error report if it died)."""
        try:
            sent = self.conn.read()
        except OSError:
            sent = b""
        self.process.wait()
        self.conn.close()
        try:
            found: dict[str, Any] | None = json.loads(sent) if sent else None
        except ValueError:  # cut short: the child died while writing
            found = None
        if found is None or "report" not in found:
            reason = (found or {}).get("error") or f"exit code {self.process.returncode}"
            return BackfillReport(self.embedder, error=f"the embedding process failed "
                                  f"({reason}); the next `repoctx index` resumes it",
                                  seconds=time.perf_counter() - self.started)
        return BackfillReport(**found["report"])


RESERVE = 4 << 30
"""Map room set aside before the child starts (address space, not disk: LMDB files are
sparse), so the child never grows the map under the parent's readers, who would then
fail with ``MDB_MAP_RESIZED``."""


def start(store: Store, root: Path, store_dir: Path | None, repo_id: str | None,
          embedder: str) -> Alongside:
    """Start the back-fill of ``store`` (opened from ``root``, ``store_dir``, ``repo_id``)
    with the embedder named ``embedder``."""
    reserve(store)
    read, write = os.pipe()
    args = {"parent": os.getpid(), "root": str(root),
            "store_dir": store_dir and str(store_dir), "repo_id": repo_id,
            "embedder": embedder, "fd": write}
    try:
        # Its stdout is not the command's: a stray print would break ``--json`` output.
        process = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(args)],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   pass_fds=(write,))
    finally:
        os.close(write)
    return Alongside(process, os.fdopen(read, "rb"), embedder, time.perf_counter())


CHILD = "import sys; from repoctx.vectors.alongside import child; child(sys.argv[1])"
"""What the child runs: ``child`` with ``start``'s arguments as JSON."""


def reserve(store: Store, room: int = RESERVE) -> None:
    """Make the map at least ``room`` bytes larger than the data and persist the size (a
    committed write), so every process that opens the store adopts it."""
    env = store.trees.env
    used = env.info()["last_pgno"] * env.stat()["psize"]
    if env.info()["map_size"] >= used + room:
        return
    env.set_mapsize(used + room)
    with store.batch() as batch:
        batch.put_local(RESERVED, used + room)


RESERVED = "vectors/alongside/map-size"
"""Store-local, read by nothing: writing it is the committed write that persists the
map size ``reserve`` set (LMDB records a new size only with a commit)."""


def child(args: str) -> None:
    """The child's work (``CHILD``): the back-fill ``args`` (JSON, from ``start``) names,
    its report (or the error that stopped it) written as JSON to the pipe ``fd``."""
    given = json.loads(args)
    die_with_parent(given["parent"])  # a killed index leaves no embedder running
    # Not niced: the command waits for this child, and on a busy machine a niced one
    # is starved while the command stands idle.

    from repoctx.store import open_store
    from repoctx.vectors.backfill import backfill
    from repoctx.vectors.embedders.settings import embedder_named

    with os.fdopen(given["fd"], "w") as out:
        try:
            store_dir = given["store_dir"]
            with open_store(Path(given["root"]), repo_id=given["repo_id"],
                            store_dir=None if store_dir is None else Path(store_dir)) as store:
                report = backfill(store, embedder_named(given["embedder"]))
            found: dict[str, Any] = {"report": asdict(report)}  # the fields, as built
        except Exception as exc:  # the parent turns it into the report's error
            found = {"error": f"{type(exc).__name__}: {exc}"}
        out.write(json.dumps(found))
