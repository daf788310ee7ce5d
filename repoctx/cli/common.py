"""cli/common — what every ``repoctx`` command module shares: exit codes, error
reporting, the ``--json`` flag and the store-location options.

Exit codes: 0 success, 1 an error repoctx names (one line on stderr), 2 bad usage
(click's own), 75 the store is busy (try again later).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from repoctx.cli.output import ABORTED, EXIT_ERROR, failure, rendered
from repoctx.cli.root import default_root

__all__ = ["Cli", "emit", "fails_cleanly", "json_option", "repo_options"]


def fails_cleanly(command: Callable[..., Any]) -> Callable[..., Any]:
    """Turn a ``RepoctxError`` into one line on stderr and a trustworthy exit code."""

    @wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except click.ClickException:
            raise  # click's own usage errors keep their message and exit code (2)
        except Exception as exc:
            line, code = failure(exc)
            click.echo(line, err=True)
            sys.exit(code)

    return wrapper


class Cli(click.Group):
    """The ``repoctx`` group: a usage error is one line on stderr and exit status 2.

    ``lazy_commands`` names commands by ``"module:attribute"``: each module is imported
    only when its command runs or a listing (``--help``) needs it, so a command such as
    ``repoctx index`` does not pay for the others' modules.
    """

    def __init__(self, *args: Any, lazy_commands: dict[str, str] | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_commands = dict(lazy_commands or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command's name, the lazy ones included (none imported)."""
        return sorted({*super().list_commands(ctx), *self.lazy_commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, its module imported on first use if it is lazy."""
        where = self.lazy_commands.get(cmd_name)
        if where is not None and cmd_name not in self.commands:
            module, _, attribute = where.partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def main(self, *args: Any, **kwargs: Any) -> Any:  # noqa: D102 - click's entry point
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            command = _command_path(getattr(exc, "ctx", None))
            click.echo(f"repoctx: {exc.format_message()} (see `{command}--help`)", err=True)
            sys.exit(exc.exit_code)
        except click.exceptions.Abort:
            click.echo(ABORTED, err=True)
            sys.exit(EXIT_ERROR)


def repo_options(positional: bool = True, new_store: bool = False, many: bool = False,
                 ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The repository and store options every command spells the same way.

    ``--repo PATH`` names the repository root (``--path`` is kept as a hidden alias;
    commands that took a positional PATH still do; with neither, ``default_root``),
    ``--store DIR`` its store and ``--repo-id ID`` the repository id. PATH must be an
    existing directory, and so must ``--store`` unless the command creates stores
    (``new_store``): a missing one is click's usage error, and nothing is created. The
    command receives ``path``, ``store_dir`` and ``repo_id``; with ``many``, ``--repo``
    may be given again for each further repository and the command receives ``paths``
    instead (``--store`` and ``--repo-id`` then name one repository's, so they go with
    one ``--repo`` only).
    """

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        @wraps(command)
        def wrapper(*args: Any, repo: Path | tuple[Path, ...] | None,
                    path_alias: Path | None, **kwargs: Any) -> Any:
            repos = repo if isinstance(repo, tuple) else (repo,)
            given = [p for p in (kwargs.pop("path_arg", None), *repos, path_alias) if p]
            if many:
                return command(*args, paths=_distinct_repos(given, kwargs) or (
                    default_root(kwargs["store_dir"]),), **kwargs)
            if len({p.resolve() for p in given}) > 1:
                raise click.UsageError("give the repository once (PATH or --repo)")
            return command(*args, path=given[0] if given else default_root(kwargs["store_dir"]),
                           **kwargs)

        # click checks that each one exists: a usage error naming it, nothing created
        directory = click.Path(path_type=Path, exists=True, file_okay=False)
        options = [
            click.option("--repo", type=directory, default=() if many else None, multiple=many,
                         help="The repository (default: the current directory)"
                              + ("; again for each further one." if many else ".")),
            click.option("--path", "path_alias", type=directory, default=None, hidden=True),
            click.option("--store", "store_dir", default=None,
                         type=click.Path(path_type=Path, exists=not new_store, file_okay=False),
                         help="Store directory (default: REPO/.repoctx)."),
            click.option("--repo-id", default=None, help="Repository id (default: derived)."),
        ]
        if positional:
            options.append(click.argument("path_arg", metavar="[PATH]", required=False,
                                          type=directory))
        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper

    return decorate


def _distinct_repos(given: list[Path], options: dict[str, Any]) -> tuple[Path, ...]:
    """The repositories of a ``many`` command, each once; a usage error when
    ``--store`` or ``--repo-id`` would be shared by several."""
    distinct = tuple({p.resolve(): p for p in given}.values())
    shared = [flag for flag, key in (("--store", "store_dir"), ("--repo-id", "repo_id"))
              if options.get(key) is not None]
    if len(distinct) > 1 and shared:
        raise click.UsageError(f"{' and '.join(shared)} name one repository's store: give "
                               "them with one --repo only (each of several repositories "
                               "uses its own REPO/.repoctx)")
    return distinct


def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--json`` flag."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")(
        command)


def emit(payload: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    """Print ``payload`` as JSON or through ``text``."""
    click.echo(rendered(payload, as_json, text))


def _command_path(ctx: click.Context | None) -> str:
    """``repoctx`` and the subcommands down to ``ctx`` (``repoctx memory recall ``), each
    followed by a space; the program's own name is always ``repoctx``."""
    names: list[str] = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return "".join(f"{n} " for n in ["repoctx", *reversed(names)])
