"""A file that becomes unreadable (chmod 000) is reported and retried, never fatal.

Root reads anything, so each pass runs in a forked child that has dropped to
``nobody``, in a directory that user owns.
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


def index_as_nobody(root: Path) -> dict:
    def run() -> dict:
        with open_store(root, repo_id="demo") as store:
            return reconcile_pass(store, root, PassOptions(workers=1)).as_json()

    answer = as_nobody(run)
    if isinstance(answer, BaseException):
        raise answer
    return answer


def test_an_unreadable_file_is_skipped_reported_and_picked_up_once_readable():
    base = Path(tempfile.mkdtemp(prefix="repoctx-nobody-", dir="/tmp"))
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
