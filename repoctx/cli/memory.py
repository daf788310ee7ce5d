"""cli/memory — ``repoctx memory``: agent memory for people and scripts.

``remember``, ``recall``, ``update``, ``forget`` and ``scan`` run the same tools as MCP
(``repocontext_*``, one argument check); ``export FILE`` and ``import FILE`` write and
merge a JSON-lines archive of the memory tree. Every command prints JSON; an error
is one line on stderr (``repoctx: ...``) and exit status 1.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from repoctx.cli.common import fails_cleanly, repo_options
from repoctx.cli.output import rendered

if TYPE_CHECKING:  # commands import the store side when they run: a fast start
    from repoctx.retrieval import Workspace


def _run(ctx: click.Context, work: Callable[[Workspace], Any]) -> None:
    """Open the workspace, run ``work``, print its JSON (errors: ``fails_cleanly``)."""
    from repoctx.errors import StoreReplacedError
    from repoctx.retrieval import open_workspace

    opts = ctx.obj or {}
    for attempt in (1, 2):
        try:
            with open_workspace(opts.get("path", "."), store_dir=opts.get("store_dir"),
                                repo_id=opts.get("repo_id")) as ws:
                result = work(ws)
            break
        except StoreReplacedError:
            # a repair swapped the store in while this waited; nothing was written
            if attempt == 2:
                raise
    click.echo(rendered(result, True, str))


def _tool(name: str, args: dict[str, Any]) -> Callable[[Workspace], Any]:
    from repoctx.tools import registry as tools

    clean = {k: v for k, v in args.items() if v is not None and v != [] and v != {}}
    return lambda ws: tools.call(ws, name, clean)


def _links(pairs: tuple[str, ...]) -> dict[str, list[str]] | None:
    """``REL=KEY`` options as ``{rel: [keys]}``."""
    out: dict[str, list[str]] = {}
    for pair in pairs:
        relation, sep, key = pair.partition("=")
        if not sep:
            raise click.BadParameter(f"{pair!r} is not RELATION=KEY")
        out.setdefault(relation, []).append(key)
    return out or None


def _body(body: str | None, body_file: Path | None) -> str | None:
    if body_file is None:
        return body
    if body is not None:
        raise click.UsageError("give --body or --body-file, not both")
    return sys.stdin.read() if str(body_file) == "-" else body_file.read_text("utf-8")


def _takes_context(command: Callable[..., Any]) -> Callable[..., Any]:
    """Store the workspace options in ``ctx.obj`` and pass the context on."""
    @wraps(command)
    def wrapper(path: Path, store_dir: Path | None, repo_id: str | None, **kwargs: Any) -> Any:
        ctx = click.get_current_context()
        ctx.obj = {"path": path, "store_dir": store_dir, "repo_id": repo_id}
        return command(ctx, **kwargs)
    return repo_options(positional=False)(fails_cleanly(wrapper))


_BODY_FILE = click.option("--body-file", type=click.Path(path_type=Path, dir_okay=False),
                          default=None, help="Read the body from a file ('-' for stdin).")


@click.group()
def memory() -> None:
    """Remember, recall, update, forget and scan agent memory; export and import it."""


@memory.command()
@click.argument("topic")
@click.option("--id", "entry_id", default=None, help="Entry id (default: generated).")
@click.option("--kind", type=click.Choice(["decision", "note", "memory"]), default=None,
              help="Kind of entry (default note).")
@click.option("--title", default=None, help="Title.")
@click.option("--body", default=None, help="Body text.")
@_BODY_FILE
@click.option("--author", default=None, help="Author.")
@click.option("--provenance", default=None, help="Where this came from.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--link", "links", multiple=True, help="RELATION=KEY link (repeatable).")
@click.option("--ttl", "ttl", type=int, default=None, help="Expire after SECONDS.")
@_takes_context
def remember(ctx: click.Context, topic: str, entry_id: str | None, kind: str | None,
             title: str | None, body: str | None, body_file: Path | None,
             author: str | None, provenance: str | None, tags: tuple[str, ...],
             links: tuple[str, ...], ttl: int | None) -> None:
    """Store a memory entry under TOPIC and print its key."""
    args = {"topic": topic, "id": entry_id, "kind": kind, "title": title,
            "body": _body(body, body_file), "author": author, "provenance": provenance,
            "tags": list(tags), "addLinks": _links(links), "ttlSeconds": ttl}
    _run(ctx, _tool("repocontext_remember", args))


@memory.command()
@click.argument("key")
@_takes_context
def recall(ctx: click.Context, key: str) -> None:
    """Print the memory entry KEY with the staleness of its links."""
    _run(ctx, _tool("repocontext_recall", {"key": key}))


@memory.command()
@click.argument("key")
@click.option("--title", default=None, help="New title.")
@click.option("--body", default=None, help="New body text.")
@_BODY_FILE
@click.option("--author", default=None, help="New author.")
@click.option("--provenance", default=None, help="New provenance.")
@click.option("--add-tag", "add_tags", multiple=True, help="Tag to add (repeatable).")
@click.option("--remove-tag", "remove_tags", multiple=True, help="Tag to remove (repeatable).")
@click.option("--add-link", "add_links", multiple=True, help="RELATION=KEY to add.")
@click.option("--remove-link", "remove_links", multiple=True, help="RELATION=KEY to remove.")
@_takes_context
def update(ctx: click.Context, key: str, title: str | None, body: str | None,
           body_file: Path | None, author: str | None, provenance: str | None,
           add_tags: tuple[str, ...], remove_tags: tuple[str, ...],
           add_links: tuple[str, ...], remove_links: tuple[str, ...]) -> None:
    """Edit fields, tags and links of the existing memory entry KEY."""
    fields = {"title": title, "body": _body(body, body_file), "author": author,
              "provenance": provenance}
    args = {"key": key, "fields": {k: v for k, v in fields.items() if v is not None},
            "addTags": list(add_tags), "removeTags": list(remove_tags),
            "addLinks": _links(add_links), "removeLinks": _links(remove_links)}
    _run(ctx, _tool("repocontext_update", args))


@memory.command()
@click.argument("key")
@click.option("--lapse", is_flag=True, help="Let it expire instead of deleting it now.")
@click.option("--lapse-seconds", type=int, default=None, help="Seconds until it lapses (60).")
@_takes_context
def forget(ctx: click.Context, key: str, lapse: bool, lapse_seconds: int | None) -> None:
    """Delete the memory entry KEY, or let it lapse."""
    args = {"key": key, "lapse": lapse or None, "lapseSeconds": lapse_seconds}
    _run(ctx, _tool("repocontext_forget", args))


@memory.command()
@click.option("--scope", type=click.Choice(["files", "packages", "symbols", "memory", "topic"]),
              default="memory", help="What to page through (default memory).")
@click.option("--topic", default=None, help="The topic, for --scope topic.")
@click.option("--prefix", "path_prefix", default=None, help="Only names starting with this.")
@click.option("--page-size", type=int, default=None, help="Entries per page (100).")
@click.option("--token", default=None, help="Continuation token of the previous page.")
@_takes_context
def scan(ctx: click.Context, scope: str, topic: str | None, path_prefix: str | None,
         page_size: int | None, token: str | None) -> None:
    """Print one page of files, packages, symbols or memory entries in key order."""
    args = {"scope": scope, "topic": topic, "pathPrefix": path_prefix, "pageSize": page_size,
            "continuationToken": token}
    _run(ctx, _tool("repocontext_scan", args))


@memory.command("export")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@_takes_context
def export_(ctx: click.Context, file: Path) -> None:
    """Write the repository's memory records to FILE (JSON lines, full CRDT records)."""
    from repoctx.memory import export_archive

    _run(ctx, lambda ws: export_archive(ws.store, file))


@memory.command("import")
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@_takes_context
def import_(ctx: click.Context, file: Path) -> None:
    """Merge the memory archive FILE into the store (safe to repeat or resume)."""
    from repoctx.memory import import_archive

    _run(ctx, lambda ws: import_archive(ws.store, file))
