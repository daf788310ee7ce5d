"""cli/check — the ``repoctx check`` and ``repoctx repair`` commands.

Attached to the main ``repoctx`` group by ``cli.py`` (``main.add_command``); imports
nothing from it. ``check`` exits 1 when anything is damaged and 0 when the store and
its export are sound; ``repair`` exits 0 once the store is rebuilt, and its report
says what could not be kept. Errors are one line on stderr with exit code 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from repoctx.cli.common import emit, fails_cleanly, json_option, repo_options
from repoctx.cli.output import EXIT_ERROR
from repoctx.errors import StoreMissingError


def _directory(path: Path, store_dir: Path | None) -> Path:
    from repoctx.store import has_store, missing_message, store_path

    directory = store_path(path.resolve(), store_dir)
    if not has_store(directory):
        raise StoreMissingError(missing_message(path.resolve()))
    return directory


@click.command("check")
@repo_options()
@json_option
@fails_cleanly
def check(path: Path, store_dir: Path | None, repo_id: str | None, as_json: bool) -> None:
    """Verify PATH's store and export: every record of every tree, and the export file.

    Exit 1 when anything is damaged (then run `repoctx repair`), 0 when all is sound.
    """
    from repoctx.maintenance import check_store, check_text
    from repoctx.retrieval import EXPORT_NAME

    del repo_id  # every repository's records are checked
    directory = _directory(path, store_dir)
    answer = check_store(directory, directory / EXPORT_NAME)
    emit(answer, as_json, check_text)
    if not answer["ok"]:
        sys.exit(EXIT_ERROR)


@click.command("repair")
@click.option("--from", "source", type=click.Path(path_type=Path, file_okay=False,
                                                  exists=True), default=None,
              help="A peer store or backup (a store directory or a repository) whose "
                   "memory and session records are merged in.")
@repo_options()
@json_option
@fails_cleanly
def repair(path: Path, source: Path | None, store_dir: Path | None, repo_id: str | None,
           as_json: bool) -> None:
    """Rebuild PATH's store: re-index the derived trees and the export from the files,
    keep every memory and session record that still decodes (or that --from holds),
    and report what was lost. The replica id is kept."""
    from repoctx.maintenance import repair as repair_store

    report = repair_store(path, store_dir=store_dir, repo_id=repo_id, source=source)
    emit(report.as_json(), as_json, lambda _: report.text())


COMMANDS = (check, repair)
"""The commands ``cli.py`` attaches."""
