"""cli_common — what every ``repoctx`` command module shares: exit codes, error
reporting, the ``--json`` flag and the store-location options.

Exit codes: 0 success, 1 an error repoctx names (one line on stderr), 2 bad usage
(click's own), 75 the store is busy (try again later).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

import click

from repoctx.errors import RepoctxError, StoreBusyError

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
        except click.ClickException:
            raise  # click's own usage errors keep their message and exit code (2)
        except Exception as exc:
            if os.environ.get("REPOCTX_DEBUG"):
                raise
            click.echo(f"repoctx: internal error: {type(exc).__name__}: {exc} (this is a "
                       "bug; REPOCTX_DEBUG=1 shows the traceback)", err=True)
            sys.exit(EXIT_ERROR)

    return wrapper


def store_location(command: Callable[..., Any], default_note: str = "PATH/.repoctx",
                   ) -> Callable[..., Any]:
    """The ``--store DIR`` and ``--repo-id ID`` options."""
    command = click.option("--repo-id", default=None, help="Repository id (default: derived).")(
        command)
    return click.option("--store", "store_dir", type=click.Path(path_type=Path), default=None,
                        help=f"Store directory (default: {default_note}).")(command)


def json_option(command: Callable[..., Any]) -> Callable[..., Any]:
    """The ``--json`` flag."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")(
        command)


def emit(payload: Any, as_json: bool, text: Callable[[Any], str]) -> None:
    """Print ``payload`` as JSON or through ``text``."""
    click.echo(json.dumps(payload, indent=2, sort_keys=True) if as_json else text(payload))
