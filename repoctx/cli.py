"""cli — the ``repoctx`` command.

Every command prints human text by default and JSON with ``--json``; errors are one
line on stderr, never a traceback (``REPOCTX_DEBUG=1`` shows one for a bug).
Exit codes: 0 success, 1 an error repoctx names, 2 bad usage, 75 the store is busy
(try again later).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from repoctx import vectors
from repoctx.cli_common import EXIT_ERROR, emit, fails_cleanly, json_option, store_location
from repoctx.cli_memory import memory
from repoctx.cli_sync import COMMANDS as SYNC_COMMANDS
from repoctx.errors import RepoctxError

if TYPE_CHECKING:  # commands import what they use in their bodies: a fast start (issue 14)
    from repoctx.store import Store


def store_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options every store command takes: the repository path, --store, --repo-id."""
    return click.argument("path", type=click.Path(path_type=Path, file_okay=False),
                          default=".")(store_location(command))


def open_for(path: Path, store_dir: Path | None, repo_id: str | None) -> Store:
    """Open the store a command works on."""
    from repoctx.store import open_store
    return open_store(path, repo_id=repo_id, store_dir=store_dir)


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
@click.option("--no-export", is_flag=True, help="Do not refresh the ContextPull export.")
@click.option("--embedder", type=click.Choice(vectors.CHOICES), default=None,
              help="Embed files, symbols and memory for semantic search (kept for later "
                   "runs; default: the one chosen before, else none).")
@json_option
@fails_cleanly
def index(path: Path, store_dir: Path | None, repo_id: str | None, full: bool, no_wait: bool,
          no_export: bool, embedder: str | None, as_json: bool) -> None:
    """Index PATH into its store: files, packages, symbols, content, cross-references."""
    from repoctx.reconcile import PassOptions, reconcile_pass
    from repoctx.retrieval import EXPORT_NAME, refresh_export
    options = PassOptions(full=full, wait=not no_wait)
    with open_for(path, store_dir, repo_id) as store:
        report = reconcile_pass(store, path, options, progress=None if as_json else progress_bar)
        payload = report.as_json()
        chosen = vectors.choose(store, embedder)
        if not vectors.is_none(chosen):
            embedded = vectors.backfill(store, chosen)  # never fails the structural pass
            payload["vectors"] = embedded.as_json()
            report.warnings += [f"vectors: {embedded.error}"] if embedded.error else []
        if not no_export:
            out = store.path / EXPORT_NAME
            exported = refresh_export(store, path, out, report.warnings)
            payload["export"] = {"path": str(out), "unchanged": exported is None} | ({
                "documents": exported.documents, "sections": exported.sections}
                if exported is not None else {})
    emit(payload, as_json, lambda p: report.text() + _export_line(p.get("export")))


def _export_line(export: dict | None) -> str:
    if export is None:
        return ""
    if export["unchanged"]:
        return f"\n  export: unchanged -> {export['path']}"
    return (f"\n  export: {export['documents']} documents, {export['sections']} sections -> "
            f"{export['path']}")


def progress_bar(total: int, done: int) -> Callable[[int], None] | None:
    """A tqdm bar on stderr when it is a terminal (nothing otherwise)."""
    if not sys.stderr.isatty() or total < 200:
        return None
    from tqdm import tqdm
    bar = tqdm(total=total, initial=done, unit="file", desc="indexing", leave=False)

    def advance(n: int) -> None:
        bar.update(n)
        if bar.n >= bar.total:
            bar.close()

    return advance


@main.command()
@click.argument("path", type=click.Path(path_type=Path, file_okay=False), default=".")
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Export file (default: the store's contextpull.sqlite).")
@click.option("--store", "store_dir", type=click.Path(path_type=Path), default=None,
              help="Store directory (default: PATH/.repoctx).")
@click.option("--repo-id", default=None, help="Repository id (default: derived).")
@json_option
@fails_cleanly
def export(path: Path, out: Path | None, store_dir: Path | None, repo_id: str | None,
           as_json: bool) -> None:
    """Export PATH into a ContextPull SQLite store any ContextPull reader can open.

    From PATH's repoctx store when it has one (run `repoctx index` first), else
    straight from the directory's documents, as ContextPull's own ingest does.
    """
    from repoctx.contextpull import export_directory, export_store
    from repoctx.retrieval import EXPORT_NAME, build_search_index, export_extras
    has_store = (store_dir or path / ".repoctx").joinpath("lmdb").is_dir()
    if has_store:
        with open_for(path, store_dir, repo_id) as store:
            out = out or store.path / EXPORT_NAME
            report = export_store(store, path, out, previous=out if out.exists() else None,
                                  finalize=export_extras(store))
    else:
        out = out or path / ".repoctx" / EXPORT_NAME
        out.parent.mkdir(parents=True, exist_ok=True)
        report = export_directory(path, out, previous=out if out.exists() else None,
                                  finalize=build_search_index)
    payload = {"path": str(out), "documents": report.documents, "sections": report.sections,
               "reused": report.reused, "corpusFingerprint": report.corpus_fingerprint}
    emit(payload, as_json, lambda p: f"exported {p['documents']} documents, {p['sections']} "
         f"sections ({p['reused']} documents reused) to {p['path']}")


@main.command(context_settings={"ignore_unknown_options": False})
@click.argument("tool")
@click.argument("arguments", default="{}")
@click.option("--db", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="A ContextPull file to read (ContextPull tools only; no store needed).")
@click.option("--path", "path", type=click.Path(path_type=Path, file_okay=False), default=".",
              help="The indexed repository (default: the current directory).")
@click.option("--store", "store_dir", type=click.Path(path_type=Path), default=None,
              help="Store directory (default: PATH/.repoctx).")
@click.option("--repo-id", default=None, help="Repository id (default: derived).")
def call(tool: str, arguments: str, db: Path | None, path: Path, store_dir: Path | None,
         repo_id: str | None) -> None:
    """Run one tool with JSON ARGUMENTS and print its JSON answer.

    Exit 1 with {"error": {"message": ...}} on a tool error.
    """
    from repoctx.contextpull import Reader, call_tool
    from repoctx.retrieval import open_workspace, tools
    try:
        args = json.loads(arguments)
        if db is not None:
            with Reader(db) as reader:
                result = call_tool(reader, tool, args)
        else:
            with open_workspace(path, store_dir=store_dir, repo_id=repo_id) as ws:
                result = tools.call(ws, tool, args)
    except (RepoctxError, ValueError) as exc:
        message = f"arguments are not JSON: {exc}" if isinstance(exc, ValueError) else str(exc)
        click.echo(json.dumps({"error": {"message": message}}))
        sys.exit(EXIT_ERROR)
    except Exception as exc:  # a bug still answers in the tool-error shape, not a traceback
        click.echo(json.dumps({"error": {"message": f"internal error: {exc!r}"}}))
        sys.exit(EXIT_ERROR)
    click.echo(tools.serialize(result))


@main.command()
@click.option("--repo", "path", type=click.Path(path_type=Path, file_okay=False), default=".",
              help="The indexed repository (default: the current directory).")
@click.option("--store", "store_dir", type=click.Path(path_type=Path), default=None,
              help="Store directory (default: REPO/.repoctx).")
@click.option("--repo-id", default=None, help="Repository id (default: derived).")
@fails_cleanly
def serve(path: Path, store_dir: Path | None, repo_id: str | None) -> None:
    """Serve the repocontext_* and ContextPull tools over MCP on stdio."""
    from repoctx.retrieval import open_workspace
    from repoctx.server import serve as run_server
    with open_workspace(path, store_dir=store_dir, repo_id=repo_id) as ws:
        run_server(ws)


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


main.add_command(memory)
for _command in SYNC_COMMANDS:
    main.add_command(_command)
