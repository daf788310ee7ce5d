"""cli/output: what a command prints and the line and exit status of a failed one,
shared by click and the plain ``repoctx index``."""

from __future__ import annotations

import pytest

from repoctx.cli.output import EXIT_BUSY, EXIT_ERROR, failure, rendered
from repoctx.errors import StoreBusyError, StoreMissingError


def test_a_named_error_says_what_was_wrong_and_a_busy_store_exits_75():
    assert failure(StoreMissingError("no store at /x")) == ("repoctx: no store at /x",
                                                            EXIT_ERROR)
    assert failure(StoreBusyError("another index runs")) == ("repoctx: another index runs",
                                                             EXIT_BUSY)


def test_a_bug_is_named_as_one_and_re_raised_under_repoctx_debug(monkeypatch):
    monkeypatch.delenv("REPOCTX_DEBUG", raising=False)
    line, code = failure(KeyError("k"))
    assert code == EXIT_ERROR and line.startswith("repoctx: internal error: KeyError: 'k'")
    assert "REPOCTX_DEBUG=1" in line
    monkeypatch.setenv("REPOCTX_DEBUG", "1")
    with pytest.raises(KeyError):
        failure(KeyError("k"))


def test_json_is_compact_in_the_answers_order_and_text_comes_from_the_payload():
    assert rendered({"b": 1, "a": [2], "é": "ü"}, True, str) == '{"b":1,"a":[2],"é":"ü"}'
    assert rendered({"n": 3}, False, lambda p: f"n={p['n']}") == "n=3"


def test_a_raw_disk_full_error_is_one_line_naming_the_disk_not_a_bug():
    import errno

    line, status = failure(OSError(errno.ENOSPC, "No space left on device", "/x/.repoctx/f"))
    assert (line, status) == ("repoctx: no space left on the disk holding /x/.repoctx/f (free "
                              "some space and run again)", EXIT_ERROR)
    assert failure(OSError(errno.EDQUOT, "Disk quota exceeded"))[0].startswith(
        "repoctx: no space left on the disk holding /")


def _run(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                          text=True, timeout=300)


def _leftovers(store):
    return sorted(p.name for p in store.iterdir()
                  if p.name.startswith(".") and p.name != ".gitignore"
                  or p.name.endswith(".tmp") or p.name == "repair.tmp")


@pytest.mark.parametrize("free_kib", [8, 40, 100, 200, 400])
def test_a_full_disk_is_one_line_naming_it_and_leaves_no_temp_file(small_disk, free_kib):
    import re

    from tests.conftest import fill_disk
    from tests.damage import make_repo

    repo = make_repo(small_disk / "repo", packages=3, modules=4)
    store = repo / ".repoctx"
    assert _run("index", str(repo)).returncode == 0
    named = re.compile(rf"^repoctx: (no space left on the disk holding {re.escape(str(store))}"
                       r"|writing \S+: no space left on the disk)( \(free some space and run "
                       r"again\))?$")
    fill_disk(small_disk, free_kib << 10)
    runs = {"repair": _run("repair", str(repo)),
            "remember": _run("memory", "remember", "t", "--repo", str(repo),
                             "--body", "x" * 60_000),
            "index --full": _run("index", str(repo), "--full")}
    import shutil
    shutil.rmtree(store)
    runs["first index"] = _run("index", str(repo))
    for what, done in runs.items():
        if done.returncode == 0:
            continue  # it fitted
        assert done.returncode == 1, (what, done.stderr)
        assert named.match(done.stderr.strip()), (what, done.stderr)
        assert _leftovers(store) == [], (what, _leftovers(store))


def test_memory_writes_on_a_full_disk_end_in_one_line_naming_it(small_disk):
    import secrets

    from tests.conftest import fill_disk
    from tests.damage import make_repo

    repo = make_repo(small_disk / "repo", packages=1, modules=1)
    assert _run("index", str(repo)).returncode == 0
    fill_disk(small_disk, 200 << 10)
    for n in range(40):
        done = _run("memory", "remember", "t", "--repo", str(repo), "--id", f"n{n}",
                    "--body", secrets.token_hex(30_000))
        if done.returncode != 0:
            break
    assert done.returncode == 1, "40 bodies of 60 KB fitted in 200 KiB"
    assert done.stderr.strip() == (f"repoctx: no space left on the disk holding "
                                   f"{repo / '.repoctx'} (free some space and run again)")
