"""cli/sync — the ``repoctx sync`` and ``repoctx sync-serve`` commands.

Attached to the main ``repoctx`` group by ``cli.py`` (``main.add_command``). Kept
apart from ``cli.py`` so that it imports nothing from it (``cli`` imports this).
Errors are one line on stderr with exit code 1, as everywhere in the CLI.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from repoctx.cli.common import fails_cleanly, repo_options
from repoctx.cli.output import rendered
from repoctx.sync.limits import (
    DEFAULT_LIMITS,
    DEFAULT_TIMEOUTS,
    MAX_BODY,
    TOKEN_ENV,
    TOKEN_HINT,
    TOKEN_MIN_CHARS,
    Limits,
    Timeouts,
)

if TYPE_CHECKING:  # commands import the store side when they run: a fast start
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
              help="A peer store directory (or repository) or http(s)://HOST:PORT; repeatable.")
@click.option("--nats", "nats_url", default=None, metavar="URL",
              help="Also publish to and consume from the repository's JetStream delta log.")
@click.option("--token", envvar=TOKEN_ENV, default=None,
              help=f"Shared token of an HTTP peer (or ${TOKEN_ENV}).")
@click.option("--tls-ca", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Trust this certificate (PEM) for https:// peers, e.g. a self-signed one.")
@click.option("--max-records", type=int, default=None, help="Stop after shipping this many.")
@_store_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
@fails_cleanly
def sync_command(peers: tuple[str, ...], nats_url: str | None, token: str | None,
                 tls_ca: str | None, max_records: int | None, path: Path,
                 store_dir: Path | None, repo_id: str | None, as_json: bool) -> None:
    """Exchange records with peer replicas until both hold the same trees."""
    from repoctx.sync import open_peer, refresher, sync

    if not peers and not nats_url:
        raise click.UsageError("give --peer PATH|URL (repeatable) or --nats URL")
    results: list[dict[str, Any]] = []
    with _open(path, repo_id, store_dir) as store:
        for peer in peers:
            transport = open_peer(peer, store, token=token, on_finish=_peer_refresher(peer),
                                  cafile=tls_ca)
            try:
                report = sync(store, transport, max_records=max_records,
                              on_merged=refresher(path, build=True))
            finally:
                transport.close()
            results.append(report.as_json())
        if nats_url:
            from repoctx.sync.nats_log import replicate

            rnd = replicate(store, nats_url)
            if rnd.received.merged:
                refresher(path, build=True)(store, rnd.received.merged)
            results.append({"nats": nats_url} | rnd.as_json())
    if as_json:
        click.echo(rendered(results, True, str))
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
              help="Address to listen on; beyond loopback a strong token is required.")
@click.option("--token", envvar=TOKEN_ENV, default=None,
              help=f"Shared token every peer must send (or ${TOKEN_ENV}); at least "
                   f"{TOKEN_MIN_CHARS} URL-safe characters: make one with {TOKEN_HINT}.")
@click.option("--tls-cert", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              default=None, help="Serve HTTPS with this certificate (PEM); needs --tls-key.")
@click.option("--tls-key", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              default=None, help="The private key (PEM) of --tls-cert.")
@click.option("--max-body", type=click.IntRange(1), default=MAX_BODY, show_default=True,
              metavar="BYTES", help="Largest request body, declared or streamed.")
@click.option("--header-timeout", type=click.FloatRange(0.1), default=DEFAULT_TIMEOUTS.head_s,
              show_default=True, metavar="SECONDS",
              help="Close a connection whose request headers take longer.")
@click.option("--idle-timeout", type=click.FloatRange(1), default=DEFAULT_TIMEOUTS.idle_s,
              show_default=True, metavar="SECONDS", help="Close a kept-alive idle connection.")
@click.option("--body-timeout", type=click.FloatRange(0.1), default=DEFAULT_LIMITS.body_idle_s,
              show_default=True, metavar="SECONDS",
              help="Refuse a request body that pauses longer (408).")
@click.option("--request-timeout", type=click.FloatRange(0.1), default=DEFAULT_LIMITS.request_s,
              show_default=True, metavar="SECONDS",
              help="Answer 504 to a request not answered within this time of its body.")
@click.option("--allow-repo", "allow_repos", multiple=True, metavar="ID",
              help="Also take pushes for this repository id (repeatable); by default only "
                   "for the ones the store holds.")
@_store_options
@fails_cleanly
def sync_serve(bind: str, token: str | None, tls_cert: Path | None, tls_key: Path | None,
               max_body: int, header_timeout: float, idle_timeout: float, body_timeout: float,
               request_timeout: float, allow_repos: tuple[str, ...],
               path: Path, store_dir: Path | None, repo_id: str | None) -> None:
    """Answer peers' `repoctx sync --peer http://HOST:PORT` requests from this store.

    Serves many peers at once, with header, body and idle timeouts. Beyond loopback,
    give --tls-cert/--tls-key, or reach the port through an SSH tunnel: plain HTTP
    carries the token and the records in clear.
    """
    from repoctx.errors import SyncRefusedError
    from repoctx.sync import SyncServer, check_bind, is_loopback, parse_bind, refresher

    host, port = parse_bind(bind)
    if (tls_cert is None) != (tls_key is None):
        raise click.UsageError("--tls-cert and --tls-key go together")
    try:
        check_bind(host, token)
    except SyncRefusedError as exc:
        raise click.UsageError(str(exc)) from None
    tls = (tls_cert, tls_key) if tls_cert and tls_key else None
    import logging  # here, not at the top: every command would pay for it

    logging.basicConfig(format="repoctx sync-serve: %(message)s", level=logging.WARNING)
    limits = Limits(max_body=max_body, body_idle_s=body_timeout,
                    body_total_s=max(DEFAULT_LIMITS.body_total_s, body_timeout),
                    max_in_flight=2 * max_body, request_s=request_timeout)
    with _open(path, repo_id, store_dir, create=False) as store:
        server = SyncServer(store, host, port, token=token, on_finish=refresher(path), tls=tls,
                            limits=limits, timeouts=Timeouts(header_timeout, idle_timeout),
                            allow_repos=allow_repos)
        scheme = "https" if tls else "http"
        click.echo(f"repoctx: serving sync of {store.repo_id} on {scheme}://{host}:{server.port}",
                   err=True)
        if tls is None and not is_loopback(host):
            click.echo("repoctx: warning: plain HTTP beyond loopback sends the token and the "
                       "records in clear; give --tls-cert/--tls-key or use an SSH tunnel",
                       err=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass  # Ctrl-C is the normal way to stop the server
        finally:
            server.server_close()


COMMANDS = (sync_command, sync_serve)
"""The commands ``cli.py`` attaches to the main group."""
