"""cli — the ``repoctx`` command.

Every command prints human text by default and JSON with ``--json`` (camelCase keys);
errors are one line on stderr, never a traceback (``REPOCTX_DEBUG=1`` shows one for a
bug). Exit codes: 0 success, 1 an error repoctx names, 2 bad usage (a missing
repository or store included: nothing is created), 75 the store is busy (try again
later). Only ``repoctx index`` creates a store. Heavy modules are imported inside the
commands that use them, so ``repoctx --version`` and a single tool call start fast.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from repoctx.cli_common import (
    EXIT_ERROR,
    Cli,
    emit,
    fails_cleanly,
    json_option,
    repo_options,
)
from repoctx.cli_progress import Phases, process_seconds
from repoctx.errors import RepoctxError

if TYPE_CHECKING:
    from repoctx.reconcile import PassReport
    from repoctx.store import Store
    from repoctx.vectors import BackfillReport
    from repoctx.vectors.alongside import Alongside


def open_for(path: Path, store_dir: Path | None, repo_id: str | None, *,
             create: bool = False, readonly: bool = False) -> Store:
    """Open the store a command works on (only ``repoctx index`` creates one)."""
    from repoctx.store import open_store

    return open_store(path, repo_id=repo_id, store_dir=store_dir, create=create,
                      readonly=readonly)


LAZY_COMMANDS = {
    "memory": "repoctx.cli_memory:memory",
    "sync": "repoctx.cli_sync:sync_command",
    "sync-serve": "repoctx.cli_sync:sync_serve",
    "check": "repoctx.cli_check:check",
    "repair": "repoctx.cli_check:repair",
}
"""The commands whose modules are imported only when they run (or ``--help`` lists them)."""


@click.group(cls=Cli, lazy_commands=LAZY_COMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="repoctx")
def main() -> None:
    """repoctx: a repository-context store for coding agents."""


@main.command()
@repo_options()
@json_option
@fails_cleanly
def stats(path: Path, store_dir: Path | None, repo_id: str | None, as_json: bool) -> None:
    """Print the store's trees (records, bytes) and its export's bytes per table."""
    from repoctx.trees import DATA_FILE

    with open_for(path, store_dir, repo_id, readonly=True) as store:
        rows = [{"tree": t.name, "records": t.records, "bytes": t.bytes} for t in store.stats()]
        data = store.trees.path / DATA_FILE  # the file: trees + free pages
        payload = {"store": str(store.path), "repoId": store.repo_id,
                   "replicaId": store.replica_id, "trees": rows,
                   "lmdb": {"path": str(data), "bytes": data.stat().st_size,
                            "inTrees": sum(r["bytes"] for r in rows)},
                   "export": _export_bytes(store.path)}
    emit(payload, as_json, _stats_text)


def _export_bytes(store_path: Path) -> dict[str, Any] | None:
    from repoctx.contextpull.table_bytes import table_bytes
    from repoctx.retrieval import EXPORT_NAME

    out = store_path / EXPORT_NAME
    if not out.is_file():
        return None
    tables = [{"table": name, "bytes": size} for name, size in table_bytes(out)]
    return {"path": str(out), "bytes": out.stat().st_size, "tables": tables}


def _stats_text(p: dict) -> str:
    lines = [f"store {p['store']}  repo {p['repoId']}  replica {p['replicaId']}"]
    lines += [f"  {r['tree']:<34} {r['records']:>9} records {r['bytes']:>12} bytes"
              for r in p["trees"]]
    lines.append(f"lmdb {p['lmdb']['path']}  {p['lmdb']['bytes']} bytes"
                 f" ({p['lmdb']['inTrees']} in the trees, the rest free or LMDB's own)")
    if p["export"] is not None:
        lines.append(f"export {p['export']['path']}  {p['export']['bytes']} bytes")
        lines += [f"  {r['table']:<44} {r['bytes']:>12} bytes" for r in p["export"]["tables"]]
    return "\n".join(lines)


@main.command()
@repo_options(new_store=True)
@click.option("--full", is_flag=True, help="Re-read and re-project every file.")
@click.option("--no-wait", is_flag=True, help="Fail at once if another index is running.")
@click.option("--no-export", is_flag=True, help="Do not refresh the ContextPull export.")
@click.option("--embedder", default=None, metavar="NAME",
              help="Embed files, symbols and memory for semantic search: none, static "
                   "(fast) or minilm (slow, best) (kept for later runs; default: the one "
                   "chosen before, else static when all-MiniLM-L6-v2 weights are "
                   "installed, else none).")
@json_option
@fails_cleanly
def index(path: Path, store_dir: Path | None, repo_id: str | None, full: bool, no_wait: bool,
          no_export: bool, embedder: str | None, as_json: bool) -> None:
    """Index PATH into its store: files, packages, symbols, content, cross-references.

    Creates the store (PATH/.repoctx) on the first run. On a terminal a progress bar
    follows the phases of a run longer than a second; --json reports each phase's
    seconds and the wall time of the whole command.
    """
    from repoctx.reconcile import PassOptions, reconcile_pass

    phases = Phases(show=not as_json)
    try:
        with open_for(path, store_dir, repo_id, create=True) as store:
            with phases.phase("pass"):
                report = reconcile_pass(store, path, PassOptions(full=full, wait=not no_wait),
                                        progress=phases.files)
            payload = report.as_json()
            moved = bool(report.added or report.changed or report.removed)
            embedding = _start_embed(store, path, store_dir, repo_id, embedder, moved, phases)
            payload["export"] = None if no_export else _export(store, path, phases, report,
                                                               not no_wait)
            payload["vectors"] = _finish_embed(embedding, phases, report.warnings)
    finally:
        phases.close()
    payload["seconds"] |= {k: round(v, 4) for k, v in phases.seconds.items() if k != "pass"}
    payload["seconds"]["wall"] = round(process_seconds(), 4)
    payload["warnings"] = report.warnings
    emit(payload, as_json, lambda p: report.text() + _export_line(p["export"]) +
         f"\n  {p['seconds']['wall']:.2f}s in all")


def _start_embed(store: Store, path: Path, store_dir: Path | None, repo_id: str | None,
                 embedder: str | None, moved: bool, phases: Phases,
                 ) -> Alongside | BackfillReport | None:
    """The back-fill: when the pass changed files, started in its own process beside the
    export (``vectors.alongside``); else (only a killed run's leftovers, if anything) run
    here at once, sparing a no-op index a process. None without an embedder."""
    from repoctx import vectors

    chosen = vectors.choose(store, embedder)
    if vectors.is_none(chosen):
        return None
    if moved:
        from repoctx.vectors import alongside

        return alongside.start(store, path, store_dir, repo_id, chosen.name)
    with phases.phase("embed"):
        return vectors.backfill(store, chosen, progress=phases.steps("embed", "source"))


def _finish_embed(embedding: Alongside | BackfillReport | None, phases: Phases,
                  warnings: list[str]) -> dict[str, Any] | None:
    if embedding is None:
        return None
    from repoctx.vectors import BackfillReport

    if not isinstance(embedding, BackfillReport):  # an ``Alongside`` child: wait for it
        with phases.phase("embed-wait"):
            embedding = embedding.wait()
        phases.seconds["embed"] = embedding.seconds
    # (never fails the structural pass; a killed back-fill resumes at the next index)
    warnings += [f"vectors: {embedding.error}"] if embedding.error else []
    return embedding.as_json()


def _export(store: Store, path: Path, phases: Phases, report: PassReport,
            wait: bool) -> dict[str, Any]:
    from repoctx.reconcile import writer_lock
    from repoctx.retrieval import EXPORT_NAME, refresh_export

    out = store.path / EXPORT_NAME
    # Under the indexer lock: an export may patch the file in place (docs/store.md).
    with phases.phase("export"), writer_lock(store.path, wait=wait):
        exported = refresh_export(store, path, out, report.warnings, nodes=report.nodes)
    if exported is None:
        return {"path": str(out), "unchanged": True}
    return {"path": str(out), "unchanged": False, "documents": exported.documents,
            "sections": exported.sections}


def _export_line(export: dict | None) -> str:
    if export is None:
        return ""
    if export["unchanged"]:
        return f"\n  export: unchanged -> {export['path']}"
    return (f"\n  export: {export['documents']} documents, {export['sections']} sections -> "
            f"{export['path']}")


@main.command()
@repo_options()
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Export file (default: the store's contextpull.sqlite).")
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
    from repoctx.store import has_store, store_path

    if out is not None and not out.parent.is_dir():
        raise click.UsageError(f"output directory {out.parent} does not exist")
    if has_store(store_path(path.resolve(), store_dir)):
        with open_for(path, store_dir, repo_id, readonly=True) as store:
            out = out or store.path / EXPORT_NAME
            report = export_store(store, path, out, previous=out if out.exists() else None,
                                  finalize=export_extras(store))
    else:
        out = out or path / ".repoctx" / EXPORT_NAME
        out.parent.mkdir(parents=True, exist_ok=True)
        report = export_directory(path, out, previous=out if out.exists() else None,
                                  finalize=build_search_index)
    payload = {"path": str(out), "documents": report.documents, "sections": report.sections,
               "reused": report.reused, "corpusFingerprint": report.corpus_fingerprint,
               **report.skipped.as_json(), "leftoversRemoved": list(report.leftovers_removed)}
    emit(payload, as_json, lambda p: f"exported {p['documents']} documents, {p['sections']} "
         f"sections ({p['reused']} documents reused) to {p['path']}\n"
         f"  skipped: {report.skipped.text()}" + "".join(
             f"\n  removed {name}, left by a killed export" for name in p["leftoversRemoved"]))


class _ToolsHelp(click.Command):
    """``repoctx call --help`` ends with the list of tools."""

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Tools"):
            formatter.write_dl(_tool_lines())


def _tool_lines() -> list[tuple[str, str]]:
    from repoctx.retrieval.tools import tools

    return [(t.name, _first_sentence(t.description)) for t in tools().values()]


def _first_sentence(text: str, width: int = 96) -> str:
    head = text.split(". ")[0].split(" — ")[0].strip().rstrip(".")
    return head if len(head) <= width else head[:width].rsplit(" ", 1)[0] + " …"


@main.command(cls=_ToolsHelp)
@click.argument("tool")
@click.argument("arguments", default="{}")
@click.option("--db", type=click.Path(path_type=Path, exists=True, dir_okay=False), default=None,
              help="A ContextPull file to read (ContextPull tools only; no store needed).")
@repo_options(positional=False)
def call(tool: str, arguments: str, db: Path | None, path: Path, store_dir: Path | None,
         repo_id: str | None) -> None:
    """Run one TOOL with the JSON object ARGUMENTS and print its JSON answer.

    Exit 1 with {"error": {"message": ...}} on stdout on a tool error (an unknown tool,
    bad arguments, a repository that was never indexed, a call that ran past
    $REPOCTX_CALL_TIMEOUT seconds, 10 by default).
    """
    from repoctx import deadline

    try:
        args = _json_object(arguments)
        with deadline.bounded(deadline.call_seconds(), tool):
            result = _call(tool, args, db, path, store_dir, repo_id)
    except RepoctxError as exc:
        _tool_error(str(exc))
    except Exception as exc:  # a bug still answers in the tool-error shape, not a traceback
        _tool_error(f"internal error: {type(exc).__name__}: {exc}")
    from repoctx.retrieval.tools import serialize

    click.echo(serialize(result))


def _call(tool: str, args: dict[str, Any], db: Path | None, path: Path,
          store_dir: Path | None, repo_id: str | None) -> dict[str, Any]:
    if db is not None:
        from repoctx.contextpull import Reader, call_tool

        with Reader(db) as reader:
            return call_tool(reader, tool, args)
    from repoctx.retrieval import open_workspace
    from repoctx.retrieval.tools import call as run_tool
    from repoctx.retrieval.tools import find_tool

    writes = not find_tool(tool).read_only  # a reader opens the store read-only
    with open_workspace(path, store_dir=store_dir, repo_id=repo_id,
                        writable=None if writes else False) as ws:
        return run_tool(ws, tool, args)


def _json_object(text: str) -> dict[str, Any]:
    from repoctx.errors import ToolError

    try:
        value = json.loads(text)
    except ValueError as exc:
        raise ToolError(f"arguments are not JSON ({exc}); give a JSON object, e.g. "
                        "'{\"query\": \"...\"}'") from None
    if not isinstance(value, dict):
        kind = {list: "an array", str: "a string", type(None): "null", bool: "a boolean"}.get(
            type(value), "a number")
        raise ToolError(f"arguments must be a JSON object, not {kind}; e.g. "
                        "'{\"query\": \"...\"}'")
    return value


def _tool_error(message: str) -> None:
    click.echo(json.dumps({"error": {"message": message}}))
    sys.exit(EXIT_ERROR)


@main.command("tools")
@json_option
def tools_command(as_json: bool) -> None:
    """List every tool with one line on what it answers."""
    lines = _tool_lines()
    emit([{"name": n, "summary": s} for n, s in lines], as_json,
         lambda rows: "\n".join(f"{r['name']:<28} {r['summary']}" for r in rows))


@main.command()
@repo_options(positional=False)
@fails_cleanly
def serve(path: Path, store_dir: Path | None, repo_id: str | None) -> None:
    """Serve the repocontext_* and ContextPull tools over MCP on stdio.

    The store is opened at the first call: until `repoctx index` has run, every tool
    answers a tool error saying so, and a later index needs no restart.
    """
    from repoctx.retrieval import open_workspace
    from repoctx.server import serve as run_server

    run_server(lambda: open_workspace(path, store_dir=store_dir, repo_id=repo_id))


@main.command()
@repo_options()
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
@repo_options()
@fails_cleanly
def backup(dest: Path, path: Path, store_dir: Path | None, repo_id: str | None) -> None:
    """Write a compact copy of the store to DEST (open it with --store DEST)."""
    if dest.exists():
        raise click.UsageError(f"{dest} exists; backup writes a new directory")
    with open_for(path, store_dir, repo_id, readonly=True) as store:
        copied = store.backup(dest)
    click.echo(f"backed up {store.path} to {dest}: {sum(copied.records.values())} records in "
               f"{len(copied.records)} trees, {copied.bytes / 1e6:.1f} MB, verified")


def run() -> None:
    """``repoctx`` as a process (the console script, ``python -m repoctx``): ``main``,
    then, once it returns or exits with a status and no other thread is left to wait
    for, the exit handlers and an exit that skips tearing the interpreter down. Freeing
    every object a one-file ``repoctx index`` made (the tokenizer's 100k ranks among them)
    was ~60 ms of CPU after the work was done (issue 15). Anything else propagates."""
    try:
        main()
        code: int | str | None = 0
    except SystemExit as exc:
        code = exc.code
    if not isinstance(code, int | None) or threading.active_count() > 1:
        sys.exit(code)  # an exit message to print, or threads to join: the usual way
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):  # after the handlers: what they print too
        with contextlib.suppress(OSError, ValueError):  # a closed pipe loses nothing more
            stream.flush()
    os._exit(code or 0)

