"""cli — the ``repoctx`` command.

Every command prints human text by default and JSON with ``--json``; errors are one
line on stderr, never a traceback. Exit codes: 0 success, 1 an error repoctx names,
2 bad usage, 75 the store is busy (try again later).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from repoctx.errors import RepoctxError, StoreBusyError
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.store import Store, open_store

EXIT_ERROR, EXIT_BUSY = 1, 75


def fails_cleanly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a ``RepoctxError`` into one line on stderr and a trustworthy exit code."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except RepoctxError as exc:
            click.echo(f"repoctx: {exc}", err=True)
            sys.exit(EXIT_BUSY if isinstance(exc, StoreBusyError) else EXIT_ERROR)

    return wrapper


def store_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options every store command takes: the repository path, --store, --repo-id."""
    command = click.option("--repo-id", default=None, help="Repository id (default: derived).")(
        command)
    command = click.option("--store", "store_dir", type=click.Path(path_type=Path), default=None,
                           help="Store directory (default: PATH/.repoctx).")(command)
    return click.argument("path", type=click.Path(path_type=Path, file_okay=False),
                          default=".")(command)


def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--json`` flag."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")(
        command)


def open_for(path: Path, store_dir: Path | None, repo_id: str | None) -> Store:
    """Open the store a command works on."""
    return open_store(path, repo_id=repo_id, store_dir=store_dir)


def emit(payload: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    """Print ``payload`` as JSON or through ``text``."""
    click.echo(json.dumps(payload, indent=2, sort_keys=True) if as_json else text(payload))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="repoctx")
def main() -> None:
    """repoctx: a repository-context store for coding agents."""


@main.command()
@store_options
@json_option
@fails_cleanly
def stats(path: Path, store_dir: Path | None, repo_id: str | None, as_json: bool) -> None:
    """Create or open the store of PATH and print its trees, records and bytes."""
    with open_for(path, store_dir, repo_id) as store:
        rows = [{"tree": t.name, "records": t.records, "bytes": t.bytes} for t in store.stats()]
        payload = {"store": str(store.path), "repoId": store.repo_id,
                   "replicaId": store.replica_id, "trees": rows}
    emit(payload, as_json, _stats_text)


def _stats_text(p: dict) -> str:
    lines = [f"store {p['store']}  repo {p['repoId']}  replica {p['replicaId']}"]
    lines += [f"  {r['tree']:<34} {r['records']:>9} records {r['bytes']:>12} bytes"
              for r in p["trees"]]
    return "\n".join(lines)


@main.command()
@store_options
@click.option("--full", is_flag=True, help="Re-read and re-project every file.")
@click.option("--no-wait", is_flag=True, help="Fail at once if another index is running.")
@json_option
@fails_cleanly
def index(path: Path, store_dir: Path | None, repo_id: str | None, full: bool, no_wait: bool,
          as_json: bool) -> None:
    """Index PATH into its store: files, packages, symbols, content, cross-references."""
    options = PassOptions(full=full, wait=not no_wait)
    with open_for(path, store_dir, repo_id) as store:
        report = reconcile_pass(store, path, options, progress=None if as_json else progress_bar)
    emit(report.as_json(), as_json, lambda _: report.text())


def progress_bar(total: int, done: int) -> Callable[[int], None] | None:
    """A tqdm bar on stderr when it is a terminal (nothing otherwise)."""
    if not sys.stderr.isatty() or total < 200:
        return None
    bar = tqdm(total=total, initial=done, unit="file", desc="indexing", leave=False)

    def advance(n: int) -> None:
        bar.update(n)
        if bar.n >= bar.total:
            bar.close()

    return advance


@main.command()
@store_options
@json_option
@fails_cleanly
def gc(path: Path, store_dir: Path | None, repo_id: str | None, as_json: bool) -> None:
    """Reap tombstones and expired records past their tree's grace period now."""
    with open_for(path, store_dir, repo_id) as store:
        reaped = store.gc()
    emit({"reaped": reaped}, as_json,
         lambda p: "\n".join(f"{k:<34} {v:>9} reaped" for k, v in p["reaped"].items()))


@main.command()
@click.argument("dest", type=click.Path(path_type=Path))
@store_options
@fails_cleanly
def backup(dest: Path, path: Path, store_dir: Path | None, repo_id: str | None) -> None:
    """Write a compact copy of the store to DEST (open it with --store DEST)."""
    if dest.exists():
        raise click.UsageError(f"{dest} exists; backup writes a new directory")
    with open_for(path, store_dir, repo_id) as store:
        store.backup(dest)
    click.echo(f"backed up {store.path} to {dest}")
