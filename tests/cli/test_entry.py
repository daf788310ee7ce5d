"""cli: help everywhere, JSON shapes, and exit codes (1 a named error, 75 busy)."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from repoctx.cli import main
from repoctx.cli.common import fails_cleanly
from repoctx.cli.output import EXIT_BUSY, EXIT_ERROR
from repoctx.errors import StoreBusyError, ToolError
from repoctx.reconcile import writer_lock
from repoctx.store import enclosing_root
from repoctx.trees import LOCAL_TREE, TREES


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()):
    with click.Context(group) as ctx:  # the lazily imported commands too
        commands = [(name, group.get_command(ctx, name)) for name in group.list_commands(ctx)]
    for name, command in commands:
        yield (*prefix, name)
        if isinstance(command, click.Group):
            yield from command_paths(command, (*prefix, name))


@pytest.mark.parametrize("path", [(), *command_paths(main)], ids=" ".join)
def test_help_of_every_command_exits_0(path):
    result = CliRunner().invoke(main, [*path, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output


def indexed(tmp_path):
    result = CliRunner().invoke(main, ["index", str(tmp_path), "--repo-id", "demo", "--json"])
    assert result.exit_code == 0, result.output
    return tmp_path


def test_stats_json_shape(tmp_path):
    indexed(tmp_path)
    result = CliRunner().invoke(main, ["stats", str(tmp_path), "--repo-id", "demo", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert set(payload) == {"store", "repoId", "replicaId", "trees", "lmdb", "export",
                            "vectors"}
    vectors = payload["vectors"]  # what semantic search costs: vector trees + embeddings
    assert vectors["inTrees"] == sum(t["bytes"] for t in payload["trees"]
                                     if t["tree"].startswith("repo-context-vector-"))
    assert vectors["bytes"] == vectors["inTrees"] + vectors["inExport"]
    lmdb = payload["lmdb"]  # the data file, and how much of it the trees hold
    assert lmdb["bytes"] == (tmp_path / ".repoctx" / "lmdb" / "data.mdb").stat().st_size
    assert 0 < lmdb["inTrees"] == sum(t["bytes"] for t in payload["trees"]) <= lmdb["bytes"]
    export = payload["export"]  # bytes per table of the export, adding up to its file
    assert "sections" in {t["table"] for t in export["tables"]}
    assert sum(t["bytes"] for t in export["tables"]) == export["bytes"] > 0
    assert payload["repoId"] == "demo" and payload["store"] == str(tmp_path / ".repoctx")
    assert [t["tree"] for t in payload["trees"]] == [t.name for t in TREES] + [LOCAL_TREE]
    assert all(set(t) == {"tree", "records", "bytes"} and isinstance(t["records"], int)
               for t in payload["trees"])


def test_stats_text_names_every_tree(tmp_path):
    indexed(tmp_path)
    result = CliRunner().invoke(main, ["stats", str(tmp_path), "--repo-id", "demo"])
    assert result.exit_code == 0 and "repo demo" in result.stdout
    assert all(t.name in result.stdout for t in TREES)
    assert "in the trees, the rest free" in result.stdout


def test_a_repoctx_error_exits_1_with_one_line(tmp_path):
    result = CliRunner().invoke(main, ["index", str(tmp_path), "--repo-id", "bad id!"])
    assert result.exit_code == EXIT_ERROR == 1
    assert result.stdout == ""
    assert result.stderr.startswith("repoctx: repo id 'bad id!'")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # nothing was created


def test_a_busy_store_exits_75(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    with writer_lock(tmp_path / ".repoctx"):
        result = CliRunner().invoke(main, ["index", str(tmp_path), "--repo-id", "demo",
                                           "--no-wait"])
    assert result.exit_code == EXIT_BUSY == 75
    assert "another repoctx index" in result.stderr and result.stderr.count("\n") == 1


def test_fails_cleanly_maps_errors_and_hides_bugs(capsys, monkeypatch):
    monkeypatch.delenv("REPOCTX_DEBUG", raising=False)

    def raiser(exc):
        @fails_cleanly
        def command():
            raise exc
        return command

    for exc, code in ((StoreBusyError("busy"), 75), (ToolError("bad"), 1), (KeyError("k"), 1)):
        with pytest.raises(SystemExit) as caught:
            raiser(exc)()
        assert caught.value.code == code
    err = capsys.readouterr().err.splitlines()
    assert err[:2] == ["repoctx: busy", "repoctx: bad"]
    assert err[2].startswith("repoctx: internal error: KeyError") and "bug" in err[2]
    monkeypatch.setenv("REPOCTX_DEBUG", "1")
    with pytest.raises(KeyError):
        raiser(KeyError("k"))()


def test_call_answers_tool_errors_as_json(tmp_path):
    result = CliRunner().invoke(main, ["call", "repocontext_nope", "{}", "--path", str(tmp_path),
                                       "--repo-id", "demo"])
    assert result.exit_code == 1
    assert "unknown tool 'repocontext_nope'" in json.loads(result.stdout)["error"]["message"]
    result = CliRunner().invoke(main, ["call", "repocontext_stats", "{not json", "--path",
                                       str(tmp_path)])
    assert result.exit_code == 2  # bad usage: the command line, not the call, was wrong
    assert json.loads(result.stdout)["error"]["message"].startswith("arguments are not JSON")
    result = CliRunner().invoke(main, ["call", "repocontext_stats", "[1]", "--path",
                                       str(tmp_path)])
    assert result.exit_code == 2 and "must be a JSON object" in result.stdout


def test_call_is_bounded_by_the_call_deadline(tmp_path):
    (tmp_path / "a.py").write_text("def alpha():\n    return 1\n")
    indexed(tmp_path)
    args = ["call", "repocontext_search", '{"query": "alpha"}', "--repo", str(tmp_path),
            "--repo-id", "demo"]
    result = CliRunner().invoke(main, args, env={"REPOCTX_CALL_TIMEOUT": "0.000001"})
    assert result.exit_code == 1
    assert "repocontext_search" in json.loads(result.stdout)["error"]["message"]
    result = CliRunner().invoke(main, args, env={"REPOCTX_CALL_TIMEOUT": "soon"})
    assert result.exit_code == 1
    assert "REPOCTX_CALL_TIMEOUT" in json.loads(result.stdout)["error"]["message"]
    result = CliRunner().invoke(main, args, env={"REPOCTX_CALL_TIMEOUT": "30"})
    assert result.exit_code == 0 and "a.py" in result.stdout


def test_backup_refuses_an_existing_destination_as_bad_usage(tmp_path):
    (tmp_path / "dest").mkdir()
    result = CliRunner().invoke(main, ["backup", str(tmp_path / "dest"), str(tmp_path)])
    assert result.exit_code == 2 and "exists" in result.stderr


def test_backup_refuses_an_existing_destination_and_writes_nothing(tmp_path):
    (tmp_path / "dest").mkdir()
    result = CliRunner().invoke(main, ["backup", str(tmp_path / "dest"), str(tmp_path)])
    assert result.exit_code != 0 and "exists; backup writes a new directory" in result.stderr
    assert list((tmp_path / "dest").iterdir()) == []


def test_index_twice_exports_once(tmp_path):
    (tmp_path / "app.py").write_text("def run():\n    return 1\n")
    args = ["index", str(tmp_path), "--repo-id", "demo"]
    first = CliRunner().invoke(main, [*args, "--json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["export"] | {"path": ""} == {
        "path": "", "unchanged": False, "documents": 1, "sections": 1}
    second = CliRunner().invoke(main, args)
    assert second.exit_code == 0 and "export: unchanged ->" in second.stdout


def _process(*args, cwd=None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120)


def test_the_process_writes_all_its_output_and_keeps_its_exit_codes(tmp_path):
    """``run`` ends the process without tearing the interpreter down: what
    was printed still arrives whole through a pipe, and every exit status is kept."""
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    indexed_run = _process("index", str(tmp_path), "--repo-id", "demo", "--json")
    assert indexed_run.returncode == 0, indexed_run.stderr
    assert json.loads(indexed_run.stdout)["added"] == 1
    tools = _process("tools")
    assert tools.returncode == 0 and tools.stdout.endswith("\n")
    assert CliRunner().invoke(main, ["tools"]).output == tools.stdout
    usage = _process("index", str(tmp_path / "missing"))
    assert usage.returncode == 2 and "does not exist" in usage.stderr
    named = _process("index", str(tmp_path), "--repo-id", "bad id!")
    assert named.returncode == EXIT_ERROR and named.stderr.startswith("repoctx: repo id")
    with writer_lock(tmp_path / ".repoctx"):
        busy = _process("index", str(tmp_path), "--repo-id", "demo", "--no-wait")
    assert busy.returncode == EXIT_BUSY, busy.stderr


def test_a_plain_index_is_parsed_as_click_would_and_anything_else_is_left_to_click(tmp_path):
    from pathlib import Path

    from repoctx.cli import plain_index

    repo, store = str(tmp_path), str(tmp_path / "new-store")
    assert plain_index(["index", repo, "--json", "--store", store, "--repo-id=demo",
                        "--full", "--embedder", "none"]) == {
        "path": Path(repo), "store_dir": Path(store), "repo_id": "demo", "embedder": "none",
        "as_json": True, "full": True, "no_wait": False, "no_export": False,
        "coverage": None, "no_coverage": False}
    assert plain_index(["index"])["path"] == enclosing_root(Path.cwd())
    assert plain_index(["index", "--store", store])["path"] == Path(".")
    assert plain_index(["index", repo, "--coverage", "x/.coverage", "--no-coverage"]) == {
        **plain_index(["index", repo]), "coverage": Path("x/.coverage"), "no_coverage": True}
    assert plain_index(["index", "--repo", repo, repo])["path"] == Path(repo)
    (tmp_path / "file").write_text("x")
    for argv in (["stats", repo], ["index", "--help"], ["index", repo, "--bogus"],
                 ["index", str(tmp_path / "missing")], ["index", str(tmp_path / "file")],
                 ["index", repo, "--store", str(tmp_path / "file")], ["index", repo, repo],
                 ["index", "--repo", repo, str(tmp_path.parent)], ["index", "--store"],
                 ["index", "--json", "--json"], ["index", "--store", "--json"],
                 ["index", "--path", repo], ["index", "--json=1"], ["index", ""],
                 ["--version"], []):
        assert plain_index(argv) is None, argv


def test_the_plain_index_knows_every_option_of_the_click_command_and_no_other():
    """An option added to (or dropped from) ``repoctx index`` must reach the plain path's
    tables too: else a dropped one would still be accepted there."""
    from repoctx.cli import INDEX_FLAGS, INDEX_VALUES
    from repoctx.cli.commands import index

    options = {opt for param in index.params for opt in param.opts if opt.startswith("--")}
    hidden = {opt for param in index.params if getattr(param, "hidden", False)
              for opt in param.opts}
    assert set(INDEX_FLAGS) | set(INDEX_VALUES) == options - hidden
    flags = {opt for param in index.params if getattr(param, "is_flag", False)
             for opt in param.opts}
    assert set(INDEX_FLAGS) == flags


def test_a_plain_no_op_index_imports_no_click_and_fails_as_click_commands_do(tmp_path):
    import subprocess
    import sys
    import time

    from repoctx.reconcile import walk_cache
    from tests.conftest import loaded_by

    CliRunner().invoke(main, ["index", str(tmp_path), "--json"])  # creates the store
    time.sleep(walk_cache.RACY_NS / 1e9 + 0.1)  # folders old enough for the walk cache
    CliRunner().invoke(main, ["index", str(tmp_path), "--json"])  # settles the walk cache
    run = ("import io; from repoctx.cli import dispatch; out, sys.stdout = sys.stdout,"
           f" io.StringIO(); assert dispatch(['index', {str(tmp_path)!r}, '--json']) == 0;"
           " assert '\"unchanged\":true' in sys.stdout.getvalue(); sys.stdout = out")
    assert loaded_by(run, ("click", "repoctx.cli.commands", "repoctx.cli.common",
                          "repoctx.reconcile.walk", "repoctx.crdt.text_body",
                          "repoctx.crdt.or_map")) == []
    with writer_lock(tmp_path / ".repoctx"):  # busy: the one line and 75, as under click
        busy = subprocess.run([sys.executable, "-m", "repoctx", "index", str(tmp_path),
                               "--no-wait"], capture_output=True, text=True)
    assert busy.returncode == EXIT_BUSY and busy.stderr.startswith("repoctx: ")
    assert len(busy.stderr.splitlines()) == 1 and "Traceback" not in busy.stderr
