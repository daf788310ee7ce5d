"""cli_sync — the ``repoctx sync`` and ``repoctx sync-serve`` commands.

Attached to the main ``repoctx`` group by ``cli.py`` (``main.add_command``). Kept
apart from ``cli.py`` so that it imports nothing from it (``cli`` imports this).
Errors are one line on stderr with exit code 1, as everywhere in the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from repoctx.cli_common import fails_cleanly, repo_options
from repoctx.sync import TOKEN_ENV

if TYPE_CHECKING:  # commands import the store side when they run: a fast start (issue 14)
    from repoctx.store import Store

_store_options = repo_options(positional=False)


def _open(repo: Path, repo_id: str | None, store_dir: Path | None, create: bool = True) -> Store:
    """The store to sync; a new replica may start empty (``repoctx sync`` only)."""
    from repoctx.store import open_store
    from repoctx.sync import adopt_repo_id

    store = open_store(repo, repo_id=repo_id, store_dir=store_dir, create=create)
    return store if repo_id else adopt_repo_id(store)


def _peer_refresher(peer: str) -> Callable[[Store, int], None] | None:
    """Refresh a directory peer's export when its repository is known (``X/.repoctx``)."""
    from repoctx.store import STORE_DIRNAME
    from repoctx.sync import refresher, store_directory

    if peer.startswith(("http://", "https://")):
        return None
    directory = store_directory(Path(peer))
    return refresher(directory.parent) if directory.name == STORE_DIRNAME else None


@click.command("sync")
@click.option("--peer", "peers", multiple=True, metavar="PATH|URL",
              help="A peer store directory (or repository) or http://HOST:PORT; repeatable.")
@click.option("--nats", "nats_url", default=None, metavar="URL",
              help="Also publish to and consume from the repository's JetStream delta log.")
@click.option("--token", envvar=TOKEN_ENV, default=None,
              help=f"Shared token of an HTTP peer (or ${TOKEN_ENV}).")
@click.option("--max-records", type=int, default=None, help="Stop after shipping this many.")
@_store_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@fails_cleanly
def sync_command(peers: tuple[str, ...], nats_url: str | None, token: str | None,
                 max_records: int | None, path: Path, store_dir: Path | None,
                 repo_id: str | None, as_json: bool) -> None:
    """Exchange records with peer replicas until both hold the same trees."""
    from repoctx.sync import open_peer, refresher, sync

    if not peers and not nats_url:
        raise click.UsageError("give --peer PATH|URL (repeatable) or --nats URL")
    results: list[dict[str, Any]] = []
    with _open(path, repo_id, store_dir) as store:
        for peer in peers:
            transport = open_peer(peer, store, token=token, on_finish=_peer_refresher(peer))
            try:
                report = sync(store, transport, max_records=max_records,
                              on_merged=refresher(path))
            finally:
                transport.close()
            results.append(report.as_json())
        if nats_url:
            from repoctx.sync.nats_log import replicate

            rnd = replicate(store, nats_url)
            if rnd.received.merged:
                refresher(path)(store, rnd.received.merged)
            results.append({"nats": nats_url} | rnd.as_json())
    if as_json:
        click.echo(json.dumps(results, indent=2, sort_keys=True))
        return
    for r in results:
        click.echo(_text(r))


def _text(r: dict[str, Any]) -> str:
    if "nats" in r:
        return (f"{r['nats']}: published {r['published']} records, merged {r['merged']} "
                f"from {r['consumed']} messages"
                + "".join(f"\n  rejected {x}" for x in r["rejected"] + r["refused"]))
    state = "" if r["complete"] else " (incomplete: run again to finish)"
    lines = [f"{r['peer']}: sent {r['sent']} records ({r['bytesSent']:,} bytes), received "
             f"{r['received']} ({r['bytesReceived']:,} bytes), {r['wireBytes']:,} bytes on "
             f"the wire{state}"]
    lines += [f"  rejected here: {x}" for x in r["rejectedHere"]]
    lines += [f"  rejected by the peer: {x}" for x in r["rejectedThere"]]
    return "\n".join(lines)


@click.command("sync-serve")
@click.option("--bind", default="127.0.0.1:7411", show_default=True, metavar="HOST:PORT",
              help="Address to listen on; beyond loopback a token is required.")
@click.option("--token", envvar=TOKEN_ENV, default=None,
              help=f"Shared token every peer must send (or ${TOKEN_ENV}).")
@_store_options
@fails_cleanly
def sync_serve(bind: str, token: str | None, path: Path, store_dir: Path | None,
               repo_id: str | None) -> None:
    """Answer peers' `repoctx sync --peer http://HOST:PORT` requests from this store."""
    from repoctx.sync import SyncServer, parse_bind, refresher

    host, port = parse_bind(bind)
    with _open(path, repo_id, store_dir, create=False) as store:
        server = SyncServer(store, host, port, token=token, on_finish=refresher(path))
        click.echo(f"repoctx: serving sync of {store.repo_id} on http://{host}:{server.port}",
                   err=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass  # Ctrl-C is the normal way to stop the server
        finally:
            server.server_close()


COMMANDS = (sync_command, sync_serve)
"""The commands ``cli.py`` attaches to the main group."""
