"""cli/entry — the ``repoctx`` process: parse, run, exit.

Every command prints human text by default and JSON with ``--json`` (camelCase keys);
errors are one line on stderr, never a traceback (``REPOCTX_DEBUG=1`` shows one for a
bug). Exit codes: 0 success, 1 an error repoctx names, 2 bad usage (a missing
repository or store included: nothing is created), 75 the store is busy (try again
later). Only ``repoctx index`` creates a store. Heavy modules are imported inside the
commands that use them, so ``repoctx --version`` and a single tool call start fast.

This module is the process's entry (``run``, ``dispatch``); ``repoctx index``'s work is
``index.index_run``, and the click commands are in ``commands`` (``main``, also
readable here). A plain ``repoctx index`` (its own options, each once, every path as
click would accept it: ``plain_index``) runs without importing click, whose import costs
~13 ms of a no-op index's ~90; anything else, ``--help`` and every usage
error included, goes through click.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import Any

from repoctx.cli.index import index_run
from repoctx.cli.output import ABORTED, EXIT_ERROR, failure, rendered
from repoctx.cli.root import default_root

INDEX_FLAGS = {"--json": "as_json", "--full": "full", "--no-wait": "no_wait",
               "--no-export": "no_export", "--no-coverage": "no_coverage"}
"""``repoctx index``'s flags, by the keyword ``index_run`` takes each as."""
INDEX_VALUES = {"--repo": "repo", "--store": "store_dir", "--repo-id": "repo_id",
                "--embedder": "embedder", "--coverage": "coverage"}
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
    store_dir = Path(store) if store is not None else None
    return {"path": Path(given[0]) if given else default_root(store_dir), "store_dir": store_dir,
            "repo_id": found.get("repo_id"), "embedder": found.get("embedder"),
            "coverage": Path(found["coverage"]) if "coverage" in found else None,
            **{key: found.get(key, False) for key in INDEX_FLAGS.values()}}


def _readable_dir(path: str) -> bool:
    return os.path.isdir(path) and os.access(path, os.R_OK)


def dispatch(argv: list[str]) -> int | str | None:
    """Run the command ``argv`` names; its exit status (an ``int``, or a message to print)."""
    plain = plain_index(argv)
    if plain is None:
        from repoctx.cli.commands import main

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
    costs ~60 ms of CPU after the work is done. Anything else propagates."""
    code = dispatch(sys.argv[1:])
    if not isinstance(code, int | None) or threading.active_count() > 1:
        sys.exit(code)  # an exit message to print, or threads to join: the usual way
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):  # after the handlers: what they print too
        with contextlib.suppress(OSError, ValueError):  # a closed pipe loses nothing more
            stream.flush()
    os._exit(code or 0)

