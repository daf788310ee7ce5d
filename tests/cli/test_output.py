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


def test_json_is_indented_with_sorted_keys_and_text_comes_from_the_payload():
    assert rendered({"b": 1, "a": [2]}, True, str) == '{\n  "a": [\n    2\n  ],\n  "b": 1\n}'
    assert rendered({"n": 3}, False, lambda p: f"n={p['n']}") == "n=3"
