"""``repoctx memory``: JSON out, one-line errors with exit 1, export/import round trip."""

from __future__ import annotations

import json

from click.testing import CliRunner

from repoctx.cli import main
from repoctx.cli.memory import memory

KEY = "repo/demo/mem/design/auth"


def indexed(tmp_path):
    (tmp_path / "repo").mkdir()
    assert CliRunner().invoke(main, ["index", str(tmp_path / "repo"), "--repo-id", "demo"]
                              ).exit_code == 0


def run(tmp_path, *args, input=None):
    base = ["--path", str(tmp_path / "repo"), "--repo-id", "demo"]
    command, rest = args[0], list(args[1:])
    return CliRunner().invoke(memory, [command, *base, *rest], input=input)


def test_remember_recall_update_forget(tmp_path):
    indexed(tmp_path)
    got = run(tmp_path, "remember", "design", "--id", "auth", "--kind", "decision",
              "--title", "JWT", "--body-file", "-", "--tag", "a",
              "--link", "see=repo/demo/mem/design/other", input="from stdin\n")
    assert got.exit_code == 0, got.output
    assert json.loads(got.output)["key"] == KEY
    view = json.loads(run(tmp_path, "recall", KEY).output)
    assert view["fields"]["body"] == "from stdin\n" and view["kind"] == "decision"
    got = run(tmp_path, "update", KEY, "--title", "JWT2", "--remove-tag", "a")
    assert json.loads(got.output)["updated"] == ["title"]
    page = json.loads(run(tmp_path, "scan", "--scope", "topic", "--topic", "design").output)
    assert [e["key"] for e in page["entries"]] == [KEY]
    assert json.loads(run(tmp_path, "forget", KEY, "--lapse").output)["lapsed"] is True
    assert json.loads(run(tmp_path, "forget", KEY).output)["forgotten"] is True


def test_a_tool_error_is_one_line_and_exit_1(tmp_path):
    indexed(tmp_path)
    got = run(tmp_path, "update", KEY, "--title", "x")
    assert got.exit_code == 1
    assert got.output.strip().count("\n") == 0 and "remember it first" in got.output
    got = run(tmp_path, "remember", "a/b")
    assert got.exit_code == 1 and "topic" in got.output


def test_export_and_import(tmp_path):
    indexed(tmp_path)
    run(tmp_path, "remember", "design", "--id", "auth", "--title", "T")
    archive = tmp_path / "mem.jsonl"
    assert json.loads(run(tmp_path, "export", str(archive)).output)["records"] == 1
    got = json.loads(run(tmp_path, "import", str(archive)).output)
    assert got == {"records": 1, "changed": 0, "resumedAt": 0}
