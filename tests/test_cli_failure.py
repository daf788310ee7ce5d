"""cli_failure: the line and exit status of a failed command, shared by click and the
plain ``repoctx index``."""

from __future__ import annotations

import pytest

from repoctx.cli_failure import EXIT_BUSY, EXIT_ERROR, failure
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
