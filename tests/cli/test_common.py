import click
from click.testing import CliRunner

from repoctx.cli.common import emit, fails_cleanly, json_option, repo_options
from repoctx.cli.output import EXIT_BUSY, EXIT_ERROR
from repoctx.errors import StoreBusyError, ToolError


def command_raising(exc: BaseException) -> click.Command:
    @click.command()
    @json_option
    @fails_cleanly
    def cmd(as_json: bool) -> None:
        if exc is None:
            emit({"ok": True}, as_json, lambda p: f"ok={p['ok']}")
            return
        raise exc

    return cmd


def test_exit_codes_scripts_can_trust():
    runner = CliRunner()
    named = runner.invoke(command_raising(ToolError("path: bad")))
    assert named.exit_code == EXIT_ERROR and named.output.strip() == "repoctx: path: bad"
    busy = runner.invoke(command_raising(StoreBusyError("held")))
    assert busy.exit_code == EXIT_BUSY
    usage = runner.invoke(command_raising(click.UsageError("wrong")))
    assert usage.exit_code == 2 and "internal error" not in usage.output
    bug = runner.invoke(command_raising(KeyError("x")))
    assert bug.exit_code == EXIT_ERROR and "internal error: KeyError" in bug.output
    assert "Traceback" not in bug.output


def test_emit_prints_text_or_json():
    runner = CliRunner()
    assert runner.invoke(command_raising(None)).output.strip() == "ok=True"
    assert runner.invoke(command_raising(None), ["--json"]).output == '{"ok":true}\n'  # compact


def test_a_usage_error_points_to_the_help_of_the_command_that_was_run(tmp_path):
    import subprocess
    import sys

    for args, command in ((["memory", "recall"], "repoctx memory recall"),
                          (["index", "--bogus"], "repoctx index"), (["--bogus"], "repoctx")):
        done = subprocess.run([sys.executable, "-m", "repoctx", *args], capture_output=True,
                              text=True, timeout=60, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.strip().endswith(f"(see `{command} --help`)"), done.stderr


def test_repo_options_with_many_take_repo_again_and_keep_store_to_one(tmp_path):
    @click.command()
    @repo_options(positional=False, many=True)
    def cmd(paths, store_dir, repo_id) -> None:
        click.echo(" ".join(p.name for p in paths))

    for name in ("a", "b"):
        (tmp_path / name).mkdir()
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    runner = CliRunner()
    assert runner.invoke(cmd, ["--repo", a, "--repo", b, "--repo", a]).output == "a b\n"
    assert runner.invoke(cmd, ["--repo", a, "--store", a]).output == "a\n"
    shared = runner.invoke(cmd, ["--repo", a, "--repo", b, "--store", a])
    assert shared.exit_code == 2 and "--store name one repository's store" in shared.output
    assert "; again for" in runner.invoke(cmd, ["--help"]).output
