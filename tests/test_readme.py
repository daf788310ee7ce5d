"""README: its Python example runs as written, and it documents every tool and command."""

from __future__ import annotations

import re
from pathlib import Path

import click

from repoctx.cli import main
from repoctx.tools.registry import tools

README = (Path(__file__).parent.parent / "README.md").read_text("utf-8")


def test_the_python_example_runs_on_a_real_repository(tmp_path, monkeypatch, capsys):
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "the README has a Python example"
    package = tmp_path / "path" / "to" / "repo" / "pkg"
    package.mkdir(parents=True)
    (package / "module.py").write_text("class Greeter:\n    def hello(self):\n        "
                                       "return 'hi'\n")
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "pkg.module.Greeter.hello" in out and "repo/repo/file/pkg/module.py" in out


def test_every_tool_is_documented():
    missing = [name for name in tools() if f"`{name}`" not in README
               and f"`_{name.removeprefix('repocontext_')}`" not in README]
    assert missing == []


def test_every_command_is_documented():
    with click.Context(main) as ctx:  # the lazily imported commands too
        commands = [name for name in main.list_commands(ctx)
                    if not main.get_command(ctx, name).hidden]
    assert {"index", "memory", "sync", "check"} <= set(commands)
    assert all(f"`repoctx {name}" in README for name in commands), commands
