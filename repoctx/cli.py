"""cli — the ``repoctx`` command.

Every command prints human text by default and JSON with ``--json`` (camelCase keys);
errors are one line on stderr, never a traceback (``REPOCTX_DEBUG=1`` shows one for a
bug). Exit codes: 0 success, 1 an error repoctx names, 2 bad usage (a missing
repository or store included: nothing is created), 75 the store is busy (try again
later). Only ``repoctx index`` creates a store. Heavy modules are imported inside the
commands that use them, so ``repoctx --version`` and a single tool call start fast.

This module is the process's entry (``run``) and ``repoctx index`` itself; the click
commands are in ``cli_commands`` (``main``, also readable here). A plain ``repoctx
index`` (its own options, each once, every path as click would accept it:
``plain_index``) runs without importing click, whose import was ~13 ms of a no-op
index's ~90 (issue 15); anything else, ``--help`` and every usage error included, goes
through click.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repoctx.cli_output import ABORTED, EXIT_ERROR, failure, rendered
from repoctx.cli_progress import Phases, process_seconds

if TYPE_CHECKING:
    import click

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


def index_run(path: Path, store_dir: Path | None, repo_id: str | None, full: bool,
              no_wait: bool, no_export: bool, embedder: str | None, as_json: bool,
              ) -> tuple[dict[str, Any], Callable[[dict[str, Any]], str]]:
    """``repoctx index`` (``cli_commands.index`` is its click command): index PATH into
    its store, then refresh the export; returns the payload and its human text."""
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
    return payload, lambda p: (report.text() + _export_line(p["export"]) +
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


INDEX_FLAGS = {"--json": "as_json", "--full": "full", "--no-wait": "no_wait",
               "--no-export": "no_export"}
"""``repoctx index``'s flags, by the keyword ``index_run`` takes each as."""
INDEX_VALUES = {"--repo": "repo", "--store": "store_dir", "--repo-id": "repo_id",
                "--embedder": "embedder"}
"""``repoctx index``'s options with a value (``--path``, hidden, is left to click)."""


def plain_index(argv: list[str]) -> dict[str, Any] | None:
    """``index_run``'s keywords when ``argv`` is a ``repoctx index`` click would run
    as is: ``index``, then known options each given once, at most one PATH, and every
    path one click accepts (an existing readable directory; a store that is not a
    file). None for anything else: click then runs it, and says what is wrong."""
    if not argv or argv[0] != "index":
        return None
    found: dict[str, Any] = {}
    positional: list[str] = []
    args = iter(argv[1:])
    for arg in args:
        name, equals, value = arg.partition("=")
        if name in INDEX_VALUES:
            if not equals:
                value = next(args, "")
            if not value or value.startswith("-") or INDEX_VALUES[name] in found:
                return None
            found[INDEX_VALUES[name]] = value
        elif arg in INDEX_FLAGS and INDEX_FLAGS[arg] not in found:
            found[INDEX_FLAGS[arg]] = True
        elif arg.startswith("-") or positional:
            return None
        else:
            positional.append(arg)
    # checked as given: Path("") would be ".", but click rejects an empty PATH
    given = [p for p in (*positional, found.pop("repo", None)) if p is not None]
    if not all(map(_readable_dir, given)) or len({Path(p).resolve() for p in given}) > 1:
        return None
    store = found.get("store_dir")
    if store is not None and os.path.exists(store) and not _readable_dir(store):
        return None
    return {"path": Path(given[0]) if given else Path("."),
            "store_dir": Path(store) if store is not None else None,
            "repo_id": found.get("repo_id"), "embedder": found.get("embedder"),
            **{key: found.get(key, False) for key in INDEX_FLAGS.values()}}


def _readable_dir(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.R_OK)


def dispatch(argv: list[str]) -> int | str | None:
    """Run the command ``argv`` names; its exit status (an ``int``, or a message to print)."""
    plain = plain_index(argv)
    if plain is None:
        from repoctx.cli_commands import main

        try:
            main(argv)
        except SystemExit as exc:
            return exc.code
        return 0
    try:
        payload, text = index_run(**plain)
    except KeyboardInterrupt:
        sys.stderr.write(f"\n{ABORTED}\n")  # click's blank line first, as under click
        return EXIT_ERROR
    except Exception as exc:  # noqa: BLE001 - the one line ``fails_cleanly`` prints
        line, code = failure(exc)
        sys.stderr.write(line + "\n")
        return code
    sys.stdout.write(rendered(payload, plain["as_json"], text) + "\n")
    return 0


def run() -> None:
    """``repoctx`` as a process (the console script, ``python -m repoctx``): ``dispatch``,
    then, once it returns or exits with a status and no other thread is left to wait
    for, the exit handlers and an exit that skips tearing the interpreter down. Freeing
    every object a one-file ``repoctx index`` made (the tokenizer's 100k ranks among them)
    was ~60 ms of CPU after the work was done (issue 15). Anything else propagates."""
    code = dispatch(sys.argv[1:])
    if not isinstance(code, int | None) or threading.active_count() > 1:
        sys.exit(code)  # an exit message to print, or threads to join: the usual way
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):  # after the handlers: what they print too
        with contextlib.suppress(OSError, ValueError):  # a closed pipe loses nothing more
            stream.flush()
    os._exit(code or 0)


def __getattr__(name: str) -> click.Group:
    """``main``, the click group (``cli_commands.main``), imported when first read."""
    if name != "main":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from repoctx.cli_commands import main

    return main
