"""cli/watch — the ``repoctx watch`` command: the live index without a server.

The same loop ``repoctx serve`` runs (``server.live.Follower``), in the foreground, for
shells and CI: one line per pass (``--json``: one JSON object per line), until Ctrl-C or
``SIGTERM``, which end it with status 0. Like ``repoctx index`` it creates the store when
there is none; a read-only store cannot be watched and is an error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from repoctx.cli.common import fails_cleanly, json_option, repo_options
from repoctx.cli.output import rendered
from repoctx.errors import StoreReadOnlyError


@click.command("watch")
@repo_options()
@json_option
@fails_cleanly
def watch(path: Path, store_dir: Path | None, repo_id: str | None, as_json: bool) -> None:
    """Keep PATH's index current: re-index (as `repoctx index`) whenever files change.

    One line per pass (--json: one JSON object per line); Ctrl-C or SIGTERM stops it.
    """
    from repoctx.server import Follower, PassDone, Target, cannot_watch, exit_on_sigterm

    target = Target(path, store_dir, repo_id)
    why = cannot_watch(target)
    if why is not None:
        raise StoreReadOnlyError(why)

    def show(done: PassDone) -> None:
        # one line each, flushed: a pipe reader sees every pass as it ends
        click.echo(rendered(done.as_json(), as_json, lambda _: done.line()))
        sys.stdout.flush()

    follower = Follower(target, show, create=True)
    exit_on_sigterm()
    try:
        follower.run()
    except KeyboardInterrupt:
        follower.stop()
