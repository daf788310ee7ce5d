"""retrieval/derived_cache: a value derived by one process is loaded by the next, only
while its tree, its store and the code that derived it are the same."""

from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.reconcile import reconcile_pass
from repoctx.retrieval import derived_cache, open_workspace

STRUCTURAL = "repo-context-structural"
KIND = dict[str, frozenset[str]]


def derive(root: Path, built: list[str], value: object = None) -> object:
    """The value ``names`` of a new workspace on ``root`` (``built`` counts its builds)."""
    def build() -> dict[str, frozenset[str]]:
        built.append("built")
        return {"a": frozenset({"b", "c"})} if value is None else value

    with open_workspace(root) as ws:
        return ws.derived("names", STRUCTURAL, build, KIND)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An indexed repository of one file, its store closed."""
    (tmp_path / "a.py").write_text("A = 1\n")
    with open_store(tmp_path, repo_id="demo") as store:
        reconcile_pass(store, tmp_path)
    return tmp_path


def index_again(root: Path) -> None:
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root)


def saved_file(root: Path) -> Path:
    return root / ".repoctx" / derived_cache.DIRNAME / "names.msgpack"


def test_the_next_process_loads_the_value_instead_of_deriving_it(root):
    built = []
    assert derive(root, built) == {"a": frozenset({"b", "c"})} and built == ["built"]
    assert derive(root, built) == {"a": frozenset({"b", "c"})} and built == ["built"]


def test_a_value_grown_after_loading_is_saved_again(root):
    derive(root, [])
    with open_workspace(root) as ws:
        ws.derived("names", STRUCTURAL, dict, KIND)["d"] = frozenset({"e"})
    assert derive(root, built := []) == {"a": frozenset({"b", "c"}), "d": frozenset({"e"})}
    assert not built


def test_a_write_to_its_tree_makes_the_next_process_derive_it_again(root):
    built = []
    derive(root, built)
    (root / "b.py").write_text("B = 1\n")
    index_again(root)
    derive(root, built)
    assert built == ["built", "built"]


def test_other_code_does_not_load_what_this_code_saved(root, monkeypatch):
    built = []
    derive(root, built)
    monkeypatch.setattr(derived_cache, "_code", lambda: "another version")
    derive(root, built)
    assert built == ["built", "built"]


def test_a_value_of_another_type_is_derived_again_not_trusted(root):
    built = []
    with open_workspace(root) as ws:
        ws.derived("names", STRUCTURAL, lambda: {"a": 1}, dict[str, int])
    assert derive(root, built) == {"a": frozenset({"b", "c"})} and built == ["built"]


@pytest.mark.parametrize("damage", [b"", b"\xc1 not msgpack", b"\x93\x01\x02\x03"])
def test_a_damaged_file_is_derived_again_never_an_error(root, damage):
    built = []
    derive(root, built)
    saved_file(root).write_bytes(damage)
    assert derive(root, built) == {"a": frozenset({"b", "c"})} and built == ["built"] * 2
    assert derive(root, built) and built == ["built"] * 2  # and saved whole again


def test_where_nothing_can_be_written_the_value_is_derived_each_time(root):
    built = []
    (root / ".repoctx" / derived_cache.DIRNAME).write_text("a file where the folder goes")
    derive(root, built)
    derive(root, built)
    assert built == ["built", "built"]
    assert not list((root / ".repoctx").glob("*.part"))


def test_a_value_past_the_bound_is_not_saved(root, monkeypatch):
    monkeypatch.setattr(derived_cache, "MOST_SAVED", 1)
    built = []
    big = {"a": frozenset({"b"}), "c": frozenset({"d"})}
    derive(root, built, big)
    assert derive(root, built, big) == big and built == ["built", "built"]
    assert not saved_file(root).exists()


def test_a_read_only_workspace_loads_what_another_process_saved(root):
    built = []
    derive(root, built)
    with open_workspace(root, writable=False) as ws:
        assert ws.derived("names", STRUCTURAL, lambda: {}, KIND) == {"a": frozenset({"b", "c"})}
