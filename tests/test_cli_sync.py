"""The ``sync`` and ``sync-serve`` commands (attached to the main group by cli.py)."""

from __future__ import annotations

import json

import click
from click.testing import CliRunner

from repoctx import open_store
from repoctx.cli_sync import COMMANDS
from tests.conftest import lww_record


def group() -> click.Group:
    @click.group()
    def main() -> None:
        """Test group."""

    for command in COMMANDS:
        main.add_command(command)
    return main


def test_every_command_has_help():
    for command in COMMANDS:
        assert command.help and len(command.help) > 10


def test_sync_with_a_directory_peer_reports_records_and_bytes(tmp_path):
    for name, replica in (("a", "ra"), ("b", "rb")):
        with open_store(tmp_path / name, repo_id="demo", replica_id=replica) as s:
            s.merge(s.key("mem", name), lww_record(s, body=name))
    runner = CliRunner()
    result = runner.invoke(group(), ["sync", "--repo", str(tmp_path / "a"), "--peer",
                                     str(tmp_path / "b"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)[0]
    assert (report["sent"], report["received"], report["complete"]) == (1, 1, True)
    text = runner.invoke(group(), ["sync", "--repo", str(tmp_path / "a"), "--peer",
                                   str(tmp_path / "b")])
    assert "sent 0 records" in text.output


def test_errors_are_one_line(tmp_path):
    open_store(tmp_path / "a", repo_id="demo").close()
    result = CliRunner().invoke(group(), ["sync", "--repo", str(tmp_path / "a"), "--peer",
                                          str(tmp_path / "nowhere")])
    assert result.exit_code == 1 and result.output.startswith("repoctx: no repoctx store")
    result = CliRunner().invoke(group(), ["sync", "--repo", str(tmp_path / "a")])
    assert result.exit_code == 2


def test_serving_beyond_loopback_without_a_token_is_refused(tmp_path, monkeypatch):
    monkeypatch.delenv("REPOCTX_SYNC_TOKEN", raising=False)
    open_store(tmp_path / "a", repo_id="demo").close()
    result = CliRunner().invoke(group(), ["sync-serve", "--repo", str(tmp_path / "a"),
                                          "--bind", "0.0.0.0:0"])
    assert result.exit_code == 1 and "shared token" in result.output
