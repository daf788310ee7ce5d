"""House rules that code review would otherwise have to catch by hand."""

import importlib
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

import repoctx
from repoctx.cli import main

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(m.name for m in pkgutil.walk_packages(repoctx.__path__, "repoctx.")
                  if m.ispkg) + ["repoctx"]


def test_imports_point_down_the_layers():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    result = subprocess.run([lint], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_crdt_imports_nothing_from_repoctx_but_errors():
    for path in (ROOT / "repoctx" / "crdt").glob("*.py"):
        for line in path.read_text().splitlines():
            if line.startswith(("from repoctx", "import repoctx")):
                assert line.startswith("from repoctx.errors import"), f"{path.name}: {line}"


@pytest.mark.parametrize("name", PACKAGES)
def test_every_package_declares_a_sorted_all_of_real_names(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported == sorted(exported), name
    assert all(hasattr(module, n) for n in exported), name


def test_ruff_is_clean():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    result = subprocess.run([ruff, "check", "repoctx", "tests", "bench"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_every_cli_command_has_help():
    def walk(group: click.Group):
        for command in group.commands.values():
            yield command
            if isinstance(command, click.Group):
                yield from walk(command)

    for command in walk(main):
        assert command.help and len(command.help.strip()) > 10, command.name


def mirrored_test(module: Path) -> Path:
    """``repoctx/<layer>/<module>.py`` -> ``tests/<layer>/test_<module>.py`` (STYLE §7)."""
    rel = module.relative_to(ROOT / "repoctx")
    return ROOT / "tests" / rel.parent / f"test_{rel.name}"


def test_every_module_has_its_mirrored_test_file():
    modules = sorted(p for p in (ROOT / "repoctx").rglob("*.py")
                     if p.name not in ("__init__.py", "__main__.py"))
    assert len(modules) > 100
    missing = [str(mirrored_test(p).relative_to(ROOT)) for p in modules
               if not mirrored_test(p).is_file()]
    assert missing == [], "modules without their mirrored test file: " + ", ".join(missing)


def test_modules_stay_small():
    for path in (ROOT / "repoctx").rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 800, path
