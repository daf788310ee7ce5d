"""cli/commands: the click group, read through ``repoctx.cli``."""

from __future__ import annotations

from click.testing import CliRunner

from repoctx import cli
from repoctx.cli import commands


def test_the_group_is_read_through_cli_and_lists_every_command():
    assert cli.main is commands.main
    result = CliRunner().invoke(cli.main, ["--help"])
    assert result.exit_code == 0
    for name in ("index", "export", "call", "memory", "sync", "sync-serve", "check", "repair"):
        assert f"  {name} " in result.output
