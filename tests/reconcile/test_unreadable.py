"""A file that becomes unreadable (chmod 000) is reported and retried, never fatal.

Root reads anything, so each pass runs in a forked child that has dropped to
``nobody``, in a directory that user owns. That child can import nothing new (the
interpreter may sit where ``nobody`` cannot read, under ``/root``), so the same passes
first run as root on a copy: every module they reach is loaded before the fork, whichever
tests ran before this one.
"""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.reconcile import PassOptions, reconcile_pass

from .helpers import NOBODY, as_nobody, write

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become nobody")


def index(root: Path) -> dict:
    with open_store(root, repo_id="demo") as store:
        return reconcile_pass(store, root, PassOptions(workers=1)).as_json()


def index_as_nobody(root: Path) -> dict:
    answer = as_nobody(lambda: index(root))
    if isinstance(answer, BaseException):
        raise answer
    return answer


def load_what_the_passes_import(tmp_path: Path) -> None:
    """A new store, an edit and a pass with nothing to do, run as root."""
    write(tmp_path / "warm", {"a.py": "A = 1\n", "b.py": "def b():\n    return 2\n"})
    index(tmp_path / "warm")
    (tmp_path / "warm" / "b.py").write_text("def b():\n    return 3\n")
    index(tmp_path / "warm")
    index(tmp_path / "warm")


def test_an_unreadable_file_is_skipped_reported_and_picked_up_once_readable(tmp_path):
    load_what_the_passes_import(tmp_path)
    # tmp_path's parents are root's alone: nobody's directory sits in the temporary root
    base = Path(tempfile.mkdtemp(prefix="repoctx-nobody-"))
    try:
        root = base / "repo"
        write(root, {"a.py": "A = 1\n", "b.py": "def b():\n    return 2\n"})
        for path in (base, root, root / "a.py", root / "b.py"):
            shutil.chown(path, NOBODY, NOBODY)
        assert index_as_nobody(root)["added"] == 2
        (root / "b.py").write_text("def b():\n    return 3\n")
        (root / "b.py").chmod(0o000)  # edited, then made unreadable
        second = index_as_nobody(root)
        assert second["skipped"] == {"unreadable": 1}
        assert second["skippedPaths"]["unreadable"] == ["b.py"]
        assert second["changed"] == 0 and second["unchanged"] == 1
        (root / "b.py").chmod(0o644)
        third = index_as_nobody(root)
        assert third["changed"] == 1 and "unreadable" not in third["skipped"]
    finally:
        shutil.rmtree(base, ignore_errors=True)
