"""cli/commands — the ``repoctx`` click group and its commands (``cli`` runs them).

``repoctx index`` is ``index.index_run``; here it is one click command among the
others, which a plain ``repoctx index`` never imports (``cli.plain_index``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from repoctx.cli.common import Cli, emit, fails_cleanly, json_option, repo_options
from repoctx.cli.index import index_run, open_for
from repoctx.cli.output import EXIT_ERROR, EXIT_USAGE, rendered
from repoctx.errors import RepoctxError

LAZY_COMMANDS = {
    "memory": "repoctx.cli.memory:memory",
    "sync": "repoctx.cli.sync:sync_command",
    "sync-serve": "repoctx.cli.sync:sync_serve",
    "check": "repoctx.cli.check:check",
    "repair": "repoctx.cli.check:repair",
    "watch": "repoctx.cli.watch:watch",
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
    payload["vectors"] = _vector_bytes(rows, payload["export"])
    emit(payload, as_json, _stats_text)


def _vector_bytes(trees: list[dict[str, Any]], export: dict[str, Any] | None) -> dict[str, int]:
    """What semantic search costs on disk: the vector trees and the export's embeddings."""
    in_trees = sum(r["bytes"] for r in trees if r["tree"].startswith("repo-context-vector-"))
    in_export = sum(t["bytes"] for t in (export or {}).get("tables", ())
                    if t["table"].startswith("embeddings"))
    return {"bytes": in_trees + in_export, "inTrees": in_trees, "inExport": in_export}


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
    vectors = p["vectors"]
    lines.append(f"vectors (semantic search) {vectors['bytes']} bytes ({vectors['inTrees']} in "
                 f"the trees, {vectors['inExport']} in the export)")
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
@click.option("--coverage", "coverage", default=None, metavar="FILE",
              type=click.Path(path_type=Path, dir_okay=False),
              help="The coverage.py data file with per-test contexts to ingest "
                   "(default: PATH/.coverage when it exists).")
@click.option("--no-coverage", is_flag=True, help="Do not ingest coverage data.")
@json_option
@fails_cleanly
def index(path: Path, store_dir: Path | None, repo_id: str | None, full: bool, no_wait: bool,
          no_export: bool, embedder: str | None, coverage: Path | None, no_coverage: bool,
          as_json: bool) -> None:
    """Index PATH into its store: files, packages, symbols, content, cross-references.

    Creates the store (PATH/.repoctx) on the first run. On a terminal a progress bar
    follows the phases of a run longer than a second; --json reports each phase's
    seconds and the wall time of the whole command.
    """
    payload, text = index_run(path, store_dir, repo_id, full, no_wait, no_export, embedder,
                              as_json, coverage=coverage, no_coverage=no_coverage)
    emit(payload, as_json, text)


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
    from repoctx.tools.registry import tools

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
    $REPOCTX_CALL_TIMEOUT seconds, 10 by default); exit 2, the same shape, when ARGUMENTS
    is not a JSON object.
    """
    from repoctx import deadline

    try:
        args = _json_object(arguments)
    except RepoctxError as exc:
        _tool_error(str(exc), EXIT_USAGE)  # the command line was wrong, not the call
    try:
        with deadline.bounded(deadline.call_seconds(), tool):
            result = _call(tool, args, db, path, store_dir, repo_id)
    except RepoctxError as exc:
        _tool_error(str(exc))
    except Exception as exc:  # a bug still answers in the tool-error shape, not a traceback
        _tool_error(f"internal error: {type(exc).__name__}: {exc}")
    click.echo(rendered(result, True, str))


def _call(tool: str, args: dict[str, Any], db: Path | None, path: Path,
          store_dir: Path | None, repo_id: str | None) -> dict[str, Any]:
    if db is not None:
        from repoctx.contextpull import Reader, call_tool

        with Reader(db) as reader:
            return call_tool(reader, tool, args)
    from repoctx.retrieval import open_workspace
    from repoctx.tools.registry import call as run_tool
    from repoctx.tools.registry import find_tool

    writes = find_tool(tool).writes(args)  # a reader opens the store read-only
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


def _tool_error(message: str, code: int = EXIT_ERROR) -> NoReturn:
    click.echo(rendered({"error": {"message": message}}, True, str))
    sys.exit(code)


@main.command("tools")
@click.argument("name", required=False)
@json_option
@fails_cleanly
def tools_command(name: str | None, as_json: bool) -> None:
    """List every tool with one line on what it answers; with NAME, that tool's guidance,
    arguments (types, defaults, limits) and answer fields."""
    if name is None:
        lines = _tool_lines()
        emit([{"name": n, "summary": s} for n, s in lines], as_json,
             lambda rows: "\n".join(f"{r['name']:<28} {r['summary']}" for r in rows))
        return
    from repoctx.tools.describe import describe
    from repoctx.tools.registry import find_tool

    emit(describe(find_tool(name)), as_json, _described_text)


def _described_text(tool: dict[str, Any]) -> str:
    """``repoctx tools NAME`` for a person: the guide, then one line per argument and field."""
    import textwrap

    writes = (" (writes)" if not tool["readOnly"] else
              f" (read-only; writes bookkeeping with {', '.join(tool['writesWith'])})"
              if tool["writesWith"] else " (read-only)")
    lines = [f"{tool['name']}: {tool['title']}{writes}",
             *textwrap.wrap(tool["guide"], 88), "", "arguments:"]
    for arg in tool["arguments"]:
        limits = [f"{key} {arg[key]}" for key in ("minimum", "maximum", "maxLength", "maxItems")
                  if key in arg]
        facts = [arg["type"], *(["required"] if arg["required"] else []),
                 *([f"default {json.dumps(arg['default'])}"] if "default" in arg else []),
                 *[f"one of {', '.join(map(str, arg[key]))}" for key in ("enum", "itemEnum")
                   if key in arg],
                 *limits]
        lines.append(f"  {arg['name']:<22} {'; '.join(facts)}"
                     + (f" - {arg['description']}" if "description" in arg else ""))
    lines += ["", "answer fields:"]
    for field in tool["answer"]:
        inner = f" ({', '.join(field['itemFields'])})" if "itemFields" in field else ""
        lines.append(f"  {field['name']:<22} {field['type']}{inner}"
                     + ("" if field["always"] else ", sometimes"))
    return "\n".join(lines)


@main.command()
@repo_options(positional=False, many=True)
@click.option("--no-watch", is_flag=True, help="Do not re-index as files change.")
@fails_cleanly
def serve(paths: tuple[Path, ...], store_dir: Path | None, repo_id: str | None,
          no_watch: bool) -> None:
    """Serve the repocontext_* and ContextPull tools over MCP on stdio.

    The store is opened at the first call: until `repoctx index` has run, every tool
    answers a tool error saying so, and a later index needs no restart. Once indexed,
    the tree is followed (as `repoctx watch`) unless --no-watch. Repeat --repo to serve
    several repositories, each with its own store (and each followed): every tool then
    takes `repo` (an id or folder; default: the repository the call's paths fall in).
    """
    from contextlib import ExitStack

    from repoctx.server import Target, following, open_repos
    from repoctx.server import serve as run_server

    repos = open_repos(paths, store_dir=store_dir, repo_id=repo_id)
    with ExitStack() as followers:
        for path in paths:
            followers.enter_context(following(Target(path, store_dir, repo_id),
                                              enabled=not no_watch))
        run_server(repos)


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
