"""retrieval/impact/since: changed against git's tree at a revision, in a real repository."""

import re

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval.impact import since
from repoctx.retrieval.impact.changed import changed
from tests.git_repo import commit_all, git
from tests.retrieval.impact.test_changed import CALC
from tests.retrieval.small_repo import FILES, build


@pytest.fixture
def repo(tmp_path):
    """The shop and pkg/calc.py, indexed, committed (the store too: it is not ignored)."""
    ws = build(tmp_path, {**FILES, "pkg/__init__.py": "", "pkg/calc.py": CALC})
    commit_all(tmp_path, "first")
    yield ws
    ws.close()


def names(answer):
    return {(s["fqName"], s["change"]) for s in answer["changedSymbols"]}


def test_edits_since_head_name_exactly_the_changed_definitions(repo):
    root = repo.root
    (root / "pkg/calc.py").write_text(CALC.replace("return x * 2", "return x * 3"))
    pricing = (root / "shop/pricing.py").read_text()
    (root / "shop/pricing.py").write_text(pricing.replace("class Discount", "# A note.\n\n"
                                                          "class Discount"))
    (root / "pkg/staged.py").write_text("def staged():\n    return 1\n")
    git(root, "add", "pkg/staged.py")
    (root / "pkg/loose.py").write_text("def loose():\n    return 2\n")
    (root / "logo.png").write_bytes(b"\x89PNG\x00\x00")
    (root / "shop/cart.py").unlink()
    got = changed(repo, since="HEAD")
    assert got["added"] == ["pkg/loose.py", "pkg/staged.py"]  # the binary file is left out
    assert got["updated"] == ["pkg/calc.py", "shop/pricing.py"]
    assert got["removed"] == ["shop/cart.py"]  # the store's own files are never named
    assert names(got) == {
        ("pkg.calc.price", "modified"), ("pkg.loose.loose", "added"),
        ("pkg.staged.staged", "added"), ("shop.cart.Cart", "removed"),
        ("shop.cart.Cart.total", "removed"), ("shop.cart.checkout", "removed")}
    assert got["since"] == {"rev": "HEAD", "commit": git(root, "rev-parse", "HEAD").strip(),
                            "cutFiles": 0}
    assert "tests/test_cart.py" in {t["path"] for t in got["tests"]}  # it runs checkout


def test_a_method_edit_contains_its_class_and_paths_limit_the_answer(repo):
    (repo.root / "pkg/calc.py").write_text(CALC.replace("sum(items)", "sum(items, 0)"))
    (repo.root / "README.md").write_text("# Shop\n\nMore.\n")
    got = changed(repo, ["pkg"], since="HEAD")
    assert got["updated"] == ["pkg/calc.py"]
    assert names(got) == {("pkg.calc.Basket.total", "modified")}
    assert got["containingChanges"] == [{"fqName": "pkg.calc.Basket", "path": "pkg/calc.py"}]


def test_an_older_revision_also_names_what_was_committed_since(repo):
    root = repo.root
    (root / "pkg/calc.py").write_text(CALC.replace("x / 10", "x / 20"))
    commit_all(root, "second")
    (root / "pkg/calc.py").write_text(CALC.replace("x / 10", "x / 20").replace("x * 2", "x * 4"))
    assert names(changed(repo, since="HEAD")) == {("pkg.calc.price", "modified")}
    assert names(changed(repo, since="HEAD~1")) == {("pkg.calc.price", "modified"),
                                                   ("pkg.calc.tax", "modified")}
    assert changed(repo, since="main")["since"]["rev"] == "main"


def test_a_touched_file_and_a_clean_tree_change_nothing(repo):
    (repo.root / "pkg/calc.py").write_text(CALC)  # same bytes, new mtime
    got = changed(repo, since="HEAD")
    assert (got["added"], got["updated"], got["removed"], got["changedSymbols"]) == (
        [], [], [], [])


def test_a_file_git_stopped_tracking_but_still_there_is_not_removed(repo):
    git(repo.root, "rm", "-q", "--cached", "pkg/calc.py")
    (repo.root / "pkg/calc.py").write_text(CALC + "\n\ndef more():\n    return 0\n")
    got = changed(repo, since="HEAD")
    assert (got["updated"], got["removed"]) == (["pkg/calc.py"], [])
    assert names(got) == {("pkg.calc.more", "added")}


def test_a_tracked_file_the_index_ignores_is_neither_updated_nor_removed(repo):
    (repo.root / ".repoctxignore").write_text("README.md\n")
    (repo.root / "README.md").write_text("# Shop\n\nEdited.\n")
    got = changed(repo, since="HEAD")
    assert (got["updated"], got["removed"]) == ([], []) and got["added"] == [".repoctxignore"]


def test_a_huge_diff_is_cut_and_says_so(repo, monkeypatch):
    monkeypatch.setattr(since, "MAX_FILES", 2)
    for n in range(4):
        (repo.root / f"pkg/new{n}.py").write_text(f"def f{n}():\n    return {n}\n")
    got = changed(repo, since="HEAD")
    assert got["added"] == ["pkg/new0.py", "pkg/new1.py"] and got["since"]["cutFiles"] == 2


@pytest.mark.parametrize(("rev", "message"), [
    ("nope", "unknown revision 'nope': list revisions with `git log --oneline`"),
    ("HEAD~9", "unknown revision 'HEAD~9'"),
    ("HEAD^{tree}", "'HEAD^{tree}' names a tree, not a commit"),
])
def test_a_bad_revision_is_a_tool_error_naming_it(repo, rev, message):
    with pytest.raises(ToolError, match=re.escape("since: " + message)):
        changed(repo, since=rev)


def test_outside_git_since_is_a_tool_error_and_the_index_baseline_still_answers(tmp_path):
    ws = build(tmp_path)
    try:
        with pytest.raises(ToolError, match="since needs a git repository"):
            changed(ws, since="HEAD")
        assert "since" not in changed(ws)
    finally:
        ws.close()


def test_in_a_git_checkout_the_default_baseline_is_head_and_index_asks_for_the_last_index(repo):
    root = repo.root
    (root / "pkg/calc.py").write_text(CALC.replace("return x * 2", "return x * 3"))
    by_default = changed(repo)
    assert by_default["since"]["rev"] == "HEAD"
    assert names(by_default) == {("pkg.calc.price", "modified")}
    commit_all(root, "second")  # committed: nothing differs from HEAD, the index still does
    assert changed(repo)["updated"] == []
    against_index = changed(repo, since="index")
    assert "since" not in against_index and against_index["updated"] == ["pkg/calc.py"]


def test_outside_a_checkout_top_the_default_baseline_is_the_last_index(tmp_path):
    assert since.default_baseline(tmp_path) is None  # no git at all
    commit_all(tmp_path, "outer")
    nested = tmp_path / "vendored"
    nested.mkdir()
    assert since.default_baseline(nested) is None  # inside another repository, not its top
    assert since.default_baseline(tmp_path) == "HEAD"
    empty = tmp_path / "fresh"
    empty.mkdir()
    git(empty, "init", "-q")
    assert since.default_baseline(empty) is None  # a checkout without a commit yet
