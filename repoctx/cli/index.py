"""cli/index — ``repoctx index``'s work: index PATH into its store, then refresh the export.

``index_run`` is what both entries run: ``entry.dispatch`` for a plain ``repoctx index``
(no click imported) and ``commands.index``, the click command. Heavy modules are
imported inside the functions that use them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from repoctx.cli.progress import Phases, process_seconds

if TYPE_CHECKING:
    from repoctx.reconcile import PassReport
    from repoctx.store import Store
    from repoctx.vectors import BackfillReport, Embedder
    from repoctx.vectors.alongside import Alongside


def open_for(path: Path, store_dir: Path | None, repo_id: str | None, *,
             create: bool = False, readonly: bool = False) -> Store:
    """Open the store a command works on (only ``repoctx index`` creates one)."""
    from repoctx.store import open_store

    return open_store(path, repo_id=repo_id, store_dir=store_dir, create=create,
                      readonly=readonly)


def index_run(path: Path, store_dir: Path | None, repo_id: str | None, full: bool,
              no_wait: bool, no_export: bool, embedder: str | None, as_json: bool,
              coverage: Path | None = None, no_coverage: bool = False,
              ) -> tuple[dict[str, Any], Callable[[dict[str, Any]], str]]:
    """``repoctx index`` (``commands.index`` is its click command): index PATH into
    its store (ingesting the coverage data file ``coverage``, default PATH/.coverage,
    unless ``no_coverage``), then refresh the export; returns the payload and its human
    text."""
    from repoctx.reconcile import PassOptions, reconcile_pass

    phases = Phases(show=not as_json)
    try:
        with open_for(path, store_dir, repo_id, create=True) as store:
            with phases.phase("pass"):
                options = PassOptions(full=full, wait=not no_wait)
                if coverage is not None or no_coverage:
                    data = None if no_coverage else coverage.absolute()  # given from the cwd
                    options = replace(options, coverage=data)
                report = reconcile_pass(store, path, options, progress=phases.files)
            payload = {"root": str(Path(path).resolve()), "store": str(store.path),
                       **report.as_json()}
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
    return payload, lambda p: (report.text() + _export_line(p["export"]) + _distil_line(p) +
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
    _distil_first(chosen, phases)
    if moved:
        from repoctx.vectors import alongside

        return alongside.start(store, path, store_dir, repo_id, chosen.name)
    with phases.phase("embed"):
        return vectors.backfill(store, chosen, progress=phases.steps("embed", "source"))


def _distil_line(payload: dict[str, Any]) -> str:
    seconds = payload["seconds"].get("distil")
    return "" if seconds is None else (f"\n  distilled the static embedding table in "
                                       f"{seconds:.1f}s (once per machine)")


def _distil_first(chosen: Embedder, phases: Phases) -> None:
    """The ``static`` table's first-use distillation (once per machine, a minute or
    two), run here before the back-fill and the export need it: shown on the bar on a
    terminal, said in a line on stderr otherwise, timed as phase ``distil``."""
    from repoctx.vectors import StaticEmbedder

    if not isinstance(chosen, StaticEmbedder) or chosen.distilled():
        return
    quiet = sys.stderr.isatty()  # the bar says it
    if not quiet:
        print("repoctx: distilling the static embedding table from all-MiniLM-L6-v2 "
              "(once per machine, a minute or two)...", file=sys.stderr, flush=True)
    with phases.phase("distil"):
        chosen.prepare(phases.steps("distil", "piece"))
    if not quiet:
        print(f"repoctx: distilled the static table in {phases.seconds['distil']:.1f}s",
              file=sys.stderr, flush=True)


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
