"""server/live — a live index: file events become incremental passes, one at a time.

``Follower`` watches a repository with ``watchfiles`` (Rust ``notify``: inotify, FSEvents,
ReadDirectoryChangesW; no polling of the tree) and runs each pass in a child process,
the indexer, as ``repoctx index`` (its own ``index_run``: the same pass and export
refresh a hand-run index does; in its own process, so a pass never holds the server's
GIL and a tool call never waits for one). Rules:

- events pass ``reconcile.event_filter`` first: what the walk ignores (git's excludes, the
  ignore files, ``.git``, any store, the active store's own writes) never starts a pass;
- a burst is one batch: ``watchfiles`` yields once the tree has been quiet for
  ``WatchTiming.step_ms``, or after ``debounce_ms`` of a storm that does not stop;
- never a pass while one runs: what arrives meanwhile is gathered and becomes the next
  pass, one pass however many batches came;
- a quiet tree costs nothing but ``watchfiles``' own check of its event buffer each
  ``step_ms`` (no walk, no stat, no process);
- the first pass runs once the watcher is up (nothing changed before it is missed), and
  catches up with edits made while nobody watched;
- the child dies with the process that started it (``PR_SET_PDEATHSIG`` where Linux has
  it), so a SIGKILLed server leaves the store as a SIGKILLed ``repoctx index`` does; the
  store's indexer lock keeps a concurrent hand-run ``repoctx index`` safe;
- the indexer runs at a lower priority (``INDEXER_NICE``), so calls keep their latency.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repoctx.reconcile import EventFilter
from repoctx.store import LMDB_DIRNAME, can_write, store_path
from repoctx.trees import DATA_FILE

# The indexer: a child that dies when the thread that started it goes (the server was
# killed), then runs ``repoctx index``'s own work (``cli.index.index_run``) once per line
# read, answering one JSON line each. It stays up between passes, so a pass pays for
# neither an interpreter nor the imports (~0.5 s of CPU of a one-file index). The
# parent's pid comes in the environment (to close the race of a parent gone before
# prctl), and so does its niceness.
_INDEXER = """
import ctypes, json, os, signal, sys
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
except (AttributeError, OSError):
    pass  # no prctl (not Linux): a pass then outlives a killed server, and finishes
if os.getppid() != int(os.environ.pop("REPOCTX_WATCH_PARENT")):
    os._exit(1)
signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it ends us itself
os.nice(int(os.environ.pop("REPOCTX_WATCH_NICE")))  # tool calls come first for the cores
from pathlib import Path
from repoctx.cli.index import index_run
from repoctx.cli.output import failure
for line in sys.stdin:
    asked = json.loads(line)
    try:
        payload, _ = index_run(Path(asked["root"]), asked["store"] and Path(asked["store"]),
                               asked["repoId"], full=False, no_wait=False, no_export=False,
                               embedder=None, as_json=True)
        answer = {"report": payload}
    except Exception as exc:
        answer = {"error": failure(exc)[0]}
    sys.stdout.write(json.dumps(answer) + "\\n")
    sys.stdout.flush()
"""
INDEXER_NICE = 5
"""The indexer's niceness (it and its analysis workers): on a busy machine a pass yields
the cores to the tool calls it would otherwise slow."""
PASSES_PER_INDEXER = 200
"""Passes one indexer process runs before a fresh one replaces it (bounds what a long
session's caches can grow to)."""


@dataclass(frozen=True, slots=True)
class WatchTiming:
    """How events are batched (milliseconds): quiet time that ends a burst, and the
    longest a storm is gathered before a pass starts anyway."""

    step_ms: int = 100
    debounce_ms: int = 1600


@dataclass(frozen=True, slots=True)
class Target:
    """The repository a follower keeps indexed, named as ``repoctx index`` takes it."""

    root: Path
    store_dir: Path | None = None
    repo_id: str | None = None

    @property
    def store(self) -> Path:
        """The store directory (default ``ROOT/.repoctx``)."""
        return store_path(self.root.resolve(), self.store_dir)

    def indexed(self) -> bool:
        """True once a store exists (``repoctx index`` ran)."""
        return (self.store / LMDB_DIRNAME / DATA_FILE).exists()

    def request(self) -> str:
        """The line asking the indexer for one pass over this repository."""
        store = str(self.store_dir.resolve()) if self.store_dir is not None else None
        return json.dumps({"root": str(self.root.resolve()), "store": store,
                           "repoId": self.repo_id}) + "\n"


@dataclass(frozen=True, slots=True)
class PassDone:
    """One pass the follower ran: what started it, how long it took, what it found."""

    number: int
    changes: int
    """Changed paths that started it (0: the first pass, catching up)."""
    seconds: float
    report: dict[str, Any] | None
    """``repoctx index --json``'s payload; None when the pass failed."""
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        """One JSON object per pass (``repoctx watch --json``)."""
        counts = {k: (self.report or {}).get(k) for k in ("added", "changed", "removed")}
        export = (self.report or {}).get("export")
        return {"pass": self.number, "changes": self.changes, "ok": self.error is None,
                "seconds": round(self.seconds, 3), **counts, "export": export,
                "error": self.error}

    def line(self) -> str:
        """One human line per pass (``repoctx watch``)."""
        cause = f"{self.changes} changed paths" if self.changes else "catching up"
        if self.error is not None:
            return f"pass {self.number} ({cause}): failed: {self.error}"
        r = self.report or {}
        export = r.get("export") or {}
        shown = ("export unchanged" if export.get("unchanged") else
                 f"export {export.get('documents')} documents" if export else "no export")
        return (f"pass {self.number} ({cause}): {r.get('added')} added, {r.get('changed')} "
                f"changed, {r.get('removed')} removed; {shown}; {self.seconds:.2f}s")


class Follower:
    """Follows one repository's working tree: a watcher thread gathers wanted changes,
    the pass loop runs one child ``repoctx index`` per gathered set."""

    def __init__(self, target: Target, on_pass: Callable[[PassDone], None], *,
                 timing: WatchTiming = WatchTiming(), create: bool = False) -> None:
        self.target = target
        self.timing = timing
        self.create = create
        """Whether a pass may create the store (``repoctx watch``); ``serve`` never does."""
        self._on_pass = on_pass
        self._filter = EventFilter(target.root, target.store)
        self._cond = threading.Condition()
        self._pending: set[str] = set()
        self._catch_up = False
        self._stop = threading.Event()
        self._child: subprocess.Popen[str] | None = None
        self._threads: list[threading.Thread] = []
        self.passes = 0

    def start(self) -> None:
        """Watch and run passes on daemon threads (the server's way)."""
        self._spawn(self._watch, "repoctx-watch")
        self._spawn(self._loop, "repoctx-pass")

    def run(self) -> None:
        """Watch on a thread and run passes here until ``stop`` (``repoctx watch``)."""
        self._spawn(self._watch, "repoctx-watch")
        self._loop()

    def stop(self) -> None:
        """Stop watching; a pass under way is ended (``SIGTERM``; the next pass redoes its
        uncommitted batch)."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        child = self._child
        if child is not None and child.poll() is None:
            child.terminate()  # mid-pass or idle: either way the store stays sound
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()

    def _spawn(self, work: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=work, name=name, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _watch(self) -> None:
        import watchfiles

        try:
            for changes in watchfiles.watch(
                    self._filter.root, watch_filter=self._wanted, step=self.timing.step_ms,
                    debounce=self.timing.debounce_ms, stop_event=_Started(self),
                    rust_timeout=0, raise_interrupt=False, ignore_permission_denied=True):
                with self._cond:
                    self._pending.update(path for _, path in changes)
                    self._cond.notify_all()
        except Exception as exc:  # noqa: BLE001 - a watcher that cannot run says so, once
            sys.stderr.write(f"repoctx: cannot watch {self.target.root}: {exc}; the index "
                             "stays as it is (run `repoctx index` by hand)\n")

    def _wanted(self, change: object, path: str) -> bool:
        return self._filter.wants(path)

    def _started(self) -> None:
        """The watcher is up: from now on no change is missed, so catch up once."""
        with self._cond:
            self._catch_up = True
            self._cond.notify_all()

    def _loop(self) -> None:
        while True:
            with self._cond:
                while not (self._pending or self._catch_up) and not self._stop.is_set():
                    self._cond.wait()
                if self._stop.is_set():
                    return
                changes = len(self._pending)
                self._pending.clear()
                self._catch_up = False
            if self.create or self.target.indexed():
                self._on_pass(self._pass(changes))

    def _pass(self, changes: int) -> PassDone:
        """One pass by the indexer, waited for (it queues behind any other indexer)."""
        self.passes += 1
        started = time.monotonic()
        try:
            answer = self._ask()
        except (OSError, ValueError) as exc:  # the indexer died: a fresh one next time
            self._retire()
            answer = {"error": f"the indexer stopped ({exc or 'no answer'}); the next "
                               "change runs a fresh one"}
        seconds = time.monotonic() - started
        if self.passes % PASSES_PER_INDEXER == 0:
            self._retire()
        return PassDone(self.passes, changes, seconds, answer.get("report"),
                        answer.get("error"))

    def _ask(self) -> dict[str, Any]:
        if self._child is None or self._child.poll() is not None:
            env = {**os.environ, "REPOCTX_WATCH_PARENT": str(os.getpid()),
                   "REPOCTX_WATCH_NICE": str(INDEXER_NICE)}
            self._child = subprocess.Popen(
                [sys.executable, "-c", _INDEXER], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True, env=env)
        child = self._child
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(self.target.request())
        child.stdin.flush()
        line = child.stdout.readline()
        if not line:
            raise ValueError("")
        return json.loads(line)

    def _retire(self) -> None:
        """End the indexer (closing its input ends its loop); the next pass starts one."""
        child, self._child = self._child, None
        if child is None:
            return
        if child.stdin is not None:
            with contextlib.suppress(OSError):
                child.stdin.close()
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


class _Started:
    """``watchfiles``' stop event: asked each step once the watcher runs, so its first
    question says the watcher is up."""

    def __init__(self, follower: Follower) -> None:
        self._follower = follower
        self._asked = False

    def is_set(self) -> bool:
        if not self._asked:
            self._asked = True
            self._follower._started()
        return self._follower._stop.is_set()


def cannot_watch(target: Target) -> str | None:
    """Why ``target`` cannot be watched (its store is read-only), or None."""
    if target.indexed() and not can_write(target.store):
        return (f"the store at {target.store} is read-only: not following the working "
                "tree (serving the index as it is)")
    return None


@contextmanager
def following(target: Target, enabled: bool = True) -> Iterator[Follower | None]:
    """Follow ``target`` for the duration of the block (``repoctx serve``): passes run in
    the background, each a line on stderr (stdout is the MCP stream). A read-only store
    says so once on stderr and is served as it is."""
    why = cannot_watch(target) if enabled else None
    if why is not None:
        sys.stderr.write(f"repoctx: {why}\n")
    if not enabled or why is not None:
        yield None
        return
    follower = Follower(target, _on_serve_pass)
    follower.start()
    try:
        yield follower
    finally:
        follower.stop()


def _on_serve_pass(done: PassDone) -> None:
    """A pass's line on stderr, which MCP clients keep as the server's log (a failed
    pass changed nothing: the next change tries again)."""
    sys.stderr.write(f"repoctx: {done.line()}\n")
    sys.stderr.flush()


def exit_on_sigterm() -> None:
    """Make ``SIGTERM`` end ``repoctx watch`` as Ctrl-C does."""
    signal.signal(signal.SIGTERM, signal.default_int_handler)
