import gc
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from repoctx import open_store
from repoctx.crdt import lww_register, record
from repoctx.errors import StoreBusyError, StoreIOError
from repoctx.extract import links_of
from repoctx.reconcile import PassOptions, reconcile_pass, writer_lock
from repoctx.reconcile.nodes import (
    content_record,
    file_node,
    package_node,
    symbol_record,
    xref_record,
)

from .helpers import as_older_version, generated_repo, tree_values, write

APP = '''"""The app."""

class Model(Base):
    """A model."""

    def save(self, force: bool = False) -> None:
        validate(self)

def validate(obj):
    raise ValidationError(obj)
'''

TESTS = '''from app import Model

class TestModel:
    def test_save(self):
        Model().save()
'''


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    write(root, {"app.py": APP, "tests/test_app.py": TESTS, "docs/guide.md": "# Guide\n\nHi.\n"})
    return root


def index(root: Path, **options) -> tuple:
    with open_store(root, repo_id="demo") as store:
        report = reconcile_pass(store, root, PassOptions(workers=1, **options))
        return report, tree_values(store)


def node(values, path):
    return values["repo-context-structural"].get(f"repo/demo/file/{path}")


def test_first_pass_projects_files_packages_symbols_content_and_xref(repo):
    report, v = index(repo)
    assert (report.added, report.scanned) == (3, 3)
    app = node(v, "app.py")
    assert app["language"] == "python" and app["tokens"] > 10 and len(app["digest"]) == 64
    assert app["symbols"] == ("app.Model", "app.Model.save", "app.validate")
    assert app["markers"] == ("content", file_node.DECLS, file_node.LINKS, "symbols", "xref")
    assert node(v, "docs/guide.md")["markers"] == ("content", file_node.LINKS)  # no symbols
    stored = v["repo-context-content"]["repo/demo/content/app.py"]
    assert "body" not in stored and content_record.unpack_body(stored["zbody"]) == APP
    decl = v["repo-context-symbol"]["repo/demo/symbol/app.Model.save"]["decl"]["app.py"]
    assert decl[0] == "method" and decl[3:5] == (6, 7) and "validate" in decl[5]
    xref = v["repo-context-xref"]
    assert xref["repo/demo/xref/validate"]["dependents"] == {"app.Model.save"}
    assert xref["repo/demo/xref/Model"]["tests"] >= {"tests.test_app.TestModel"}
    assert v["repo-context-structural"]["repo/demo/pkg/."]["children"] == {
        "app.py", "docs/", "tests/"}
    assert v["repo-context-structural"]["repo/demo"]["files"] == 3


def test_a_second_pass_over_an_unchanged_tree_writes_nothing(repo):
    index(repo)
    with open_store(repo, repo_id="demo") as store:
        report = reconcile_pass(store, repo, PassOptions(workers=1))
        assert store.trees.writes == 0 and store.trees.commits == 0
    assert report.unchanged == 3 and report.records_written == 0
    assert report.added == report.changed == report.touched == report.removed == 0


def test_touch_refreshes_the_stat_only(repo):
    index(repo)
    os.utime(repo / "app.py", ns=(1, 1))
    report, v = index(repo)
    assert report.touched == 1 and report.symbols_written == 0
    assert node(v, "app.py")["mtime_ns"] == 1


def test_edit_rename_and_delete(repo):
    index(repo)
    write(repo, {"app.py": APP.replace("validate(self)", "check(self)")})
    report, v = index(repo)
    assert report.changed == 1
    assert "repo/demo/xref/validate" not in v["repo-context-xref"]  # pruned: no dependents
    assert v["repo-context-xref"]["repo/demo/xref/check"]["dependents"] == {"app.Model.save"}
    (repo / "app.py").rename(repo / "core.py")
    report, v = index(repo)
    assert (report.added, report.removed) == (1, 1)
    assert node(v, "app.py") is None and "repo/demo/content/app.py" not in v[
        "repo-context-content"]
    assert "repo/demo/symbol/app.Model" not in v["repo-context-symbol"]
    assert "repo/demo/symbol/core.Model" in v["repo-context-symbol"]
    (repo / "docs" / "guide.md").unlink()
    _, v = index(repo)
    assert "repo/demo/pkg/docs" not in v["repo-context-structural"]  # empty dir pruned
    assert "docs/" not in v["repo-context-structural"]["repo/demo/pkg/."]["children"]


def test_moving_a_class_between_files_keeps_xref_right(tmp_path):
    root = tmp_path / "r"
    write(root, {"pkg/__init__.py": "from .a import Thing\n",
                 "pkg/a.py": "class Thing(Base):\n    pass\n", "pkg/b.py": "X = 1\n"})
    index(root)
    write(root, {"pkg/a.py": "Y = 2\n", "pkg/b.py": "X = 1\n\nclass Thing(Base):\n    pass\n"})
    _, v = index(root)
    assert "repo/demo/symbol/pkg.a.Thing" not in v["repo-context-symbol"]
    assert v["repo-context-xref"]["repo/demo/xref/Base"]["dependents"] == {"pkg.b.Thing"}


def test_a_stub_and_its_module_both_declare_until_the_last_one_goes(tmp_path):
    root = tmp_path / "r"
    write(root, {"m.py": "class Foo:\n    pass\n", "m.pyi": "class Foo: ...\n"})
    _, v = index(root)
    assert set(v["repo-context-symbol"]["repo/demo/symbol/m.Foo"]["decl"]) == {"m.py", "m.pyi"}
    (root / "m.pyi").unlink()
    _, v = index(root)
    assert set(v["repo-context-symbol"]["repo/demo/symbol/m.Foo"]["decl"]) == {"m.py"}
    (root / "m.py").unlink()
    _, v = index(root)
    assert "repo/demo/symbol/m.Foo" not in v["repo-context-symbol"]


def test_hard_files_never_abort_a_pass(tmp_path):
    root = tmp_path / "r"
    big = "x = 1\n" * (5 * 1024 * 1024 // 6 + 10)  # over 4 MiB
    generated = "".join(f"def f{i}():\n    return {i}\n" for i in range(50_000))  # 100k lines
    write(root, {"bad.py": b"def f():\n    return '\xff\xfe'\n", "big.py": big,
                 "gen.py": generated, "ok.py": "A = 1\n"})
    os.symlink(root, root / "loop")
    report, v = index(root)
    assert report.added == 4 and report.skipped["too-large-to-project"] == 1
    assert node(v, "big.py")["markers"] == () and node(v, "big.py").get("tokens") is None
    assert "repo/demo/content/big.py" not in v["repo-context-content"]
    assert "repo/demo/symbol/bad.f" in v["repo-context-symbol"]
    assert len(node(v, "gen.py")["symbols"]) == 50_000
    report, _ = index(root)
    assert report.records_written == 0  # the big file is re-checked by stat, not re-read


def test_binary_files_are_dropped_and_not_reread(tmp_path):
    root = tmp_path / "r"
    write(root, {"logo.png": b"\x89PNG\x00\x00data", "a.py": "A = 1\n"})
    report, v = index(root)
    assert report.skipped["binary"] == 1 and node(v, "logo.png") is None
    report, _ = index(root)
    assert report.skipped["binary"] == 1 and report.records_written == 0


def test_backfill_heals_a_store_written_without_projections(repo):
    with open_store(repo, repo_id="demo") as store:
        reconcile_pass(store, repo, PassOptions(workers=1, content=False, symbols=False,
                                                xref=False))
        assert tree_values(store)["repo-context-symbol"] == {}
        healed = reconcile_pass(store, repo, PassOptions(workers=1))
        assert healed.backfilled["symbols"] == 2 and healed.backfilled["content"] == 3
        after = tree_values(store)
        again = reconcile_pass(store, repo, PassOptions(workers=1))
        assert dict(again.backfilled) == {} and again.records_written == 0
    _, clean = index_fresh(repo)
    assert after == clean


def test_xref_backfill_seeds_from_stored_symbols_without_reparsing(repo):
    with open_store(repo, repo_id="demo") as store:
        reconcile_pass(store, repo, PassOptions(workers=1, xref=False))
        assert tree_values(store)["repo-context-xref"] == {}
        # Same size and mtime, other references: a re-parse would see them, the seed
        # (which reads the stored forward references) must not.
        app, stat = repo / "app.py", (repo / "app.py").stat()
        app.write_text(APP.replace("validate", "vxlidate"))
        os.utime(app, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        healed = reconcile_pass(store, repo, PassOptions(workers=1))
        assert healed.backfilled["xref"] == 2
        assert "repo/demo/xref/vxlidate" not in tree_values(store)["repo-context-xref"]
        app.write_text(APP)
        os.utime(app, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert tree_values(store)["repo-context-xref"] == index_fresh(repo)[1][
            "repo-context-xref"]


def test_a_store_of_older_declarations_heals_on_the_next_pass(repo):
    with open_store(repo, repo_id="demo") as store:
        reconcile_pass(store, repo, PassOptions(workers=1))
        as_older_version(store)
        decls = symbol_record.declarations(store.get(store.key("symbol", "app.Model")))
        assert decls["app.py"].digest == ""
        healed = reconcile_pass(store, repo, PassOptions(workers=1))
        assert healed.backfilled["symbols"] == 2 and healed.changed == 0
        decls = symbol_record.declarations(store.get(store.key("symbol", "app.Model")))
        assert len(decls["app.py"].digest) == 16
        after = tree_values(store)
        again = reconcile_pass(store, repo, PassOptions(workers=1))
        assert dict(again.backfilled) == {} and again.records_written == 0
    assert after == index_fresh(repo)[1]


def test_the_declaration_backfill_resumes_after_a_failed_pass(repo, monkeypatch):
    with open_store(repo, repo_id="demo") as store:
        reconcile_pass(store, repo, PassOptions(workers=1))
        as_older_version(store)
        real = symbol_record.declare_delta

        def failing(current, path, decl, tick, replica):
            if path == "tests/test_app.py":
                raise StoreIOError("disk gone")
            return real(current, path, decl, tick, replica)

        monkeypatch.setattr(symbol_record, "declare_delta", failing)
        with pytest.raises(StoreIOError):
            reconcile_pass(store, repo, PassOptions(workers=1, batch_files=1))
        monkeypatch.setattr(symbol_record, "declare_delta", real)
        markers = {p: n.markers for p, n in file_node.load_all(store).items()}
        assert file_node.DECLS in markers["app.py"]  # its batch committed
        assert file_node.DECLS not in markers["tests/test_app.py"]
        resumed = reconcile_pass(store, repo, PassOptions(workers=1))
        assert resumed.backfilled["symbols"] == 1
        after = tree_values(store)
    assert after == index_fresh(repo)[1]


def test_a_new_declaration_shape_reprojects_every_file_once(repo, monkeypatch):
    with open_store(repo, repo_id="demo") as store:
        reconcile_pass(store, repo, PassOptions(workers=1))
        monkeypatch.setattr(file_node, "DECLS", "decls-v99")
        monkeypatch.setattr(file_node, "MARKERS", (*file_node.MARKERS[:-1], "decls-v99"))
        healed = reconcile_pass(store, repo, PassOptions(workers=1))
        assert healed.backfilled["symbols"] == 2
        assert file_node.load_all(store)["app.py"].markers == (
            "content", "decls-v99", file_node.LINKS, "symbols", "xref")  # the older one: gone
        again = reconcile_pass(store, repo, PassOptions(workers=1))
        assert dict(again.backfilled) == {} and again.records_written == 0


def test_a_store_without_links_writes_them_once_and_reads_like_a_fresh_one(repo):
    with open_store(repo, repo_id="demo") as store:
        reconcile_pass(store, repo, PassOptions(workers=1))
        for path, node in file_node.load_all(store).items():  # as an older version left it
            if path.endswith(".py"):  # no links (an older version writes none, either)
                store.merge(store.key("content", path), record.write({
                    content_record.LINKS: lww_register.set_value(
                        lww_register.EMPTY, None, store.tick(), store.replica_id)},
                    store.tick()))
            store.merge(store.key("file", path), file_node.node_delta(
                store.get(store.key("file", path)), replace(node, markers=tuple(
                    m for m in node.markers if m != file_node.LINKS)), store.tick(),
                store.replica_id))
        assert content_record.links(store.get(store.key("content", "app.py"))) is None
        healed = reconcile_pass(store, repo, PassOptions(workers=1))
        assert healed.backfilled["content"] == 3 and healed.changed == 0
        stored = content_record.links(store.get(store.key("content", "app.py")))
        assert stored == links_of("app.py", APP)
        assert content_record.links(store.get(store.key("content", "docs/guide.md"))) is None
        after = tree_values(store)
        again = reconcile_pass(store, repo, PassOptions(workers=1))
        assert dict(again.backfilled) == {} and again.records_written == 0
    assert after["repo-context-content"] == index_fresh(repo)[1]["repo-context-content"]


def index_fresh(root: Path):
    store_dir = root.parent / f"fresh-{os.getpid()}-{len(list(root.parent.iterdir()))}"
    with open_store(root, repo_id="demo", store_dir=store_dir) as store:
        report = reconcile_pass(store, root, PassOptions(workers=1))
        return report, tree_values(store)


def test_a_content_tree_failure_degrades_content_only(repo, monkeypatch):
    from repoctx.errors import StoreIOError

    def stale(*args, **kwargs):
        raise StoreIOError("content leaf is stale")

    monkeypatch.setattr(content_record, "content_delta", stale)
    report, v = index(repo)
    assert report.warnings and v["repo-context-symbol"]  # symbols still projected
    assert "content" not in node(v, "app.py")["markers"]
    monkeypatch.undo()
    healed, v = index(repo)
    assert healed.backfilled["content"] == 3 and "content" in node(v, "app.py")["markers"]


def test_a_failure_on_a_store_of_record_tree_fails_the_pass(repo, monkeypatch):
    from repoctx.errors import StoreIOError

    def broken(*args, **kwargs):
        raise StoreIOError("symbol tree refused")

    monkeypatch.setattr(symbol_record, "declare_delta", broken)
    with pytest.raises(StoreIOError):
        index(repo)
    monkeypatch.undo()
    report, _ = index(repo)
    assert report.added == 3  # nothing of the failed batch was written


def test_a_second_indexer_is_refused_with_no_wait(repo):
    with open_store(repo, repo_id="demo") as store, writer_lock(store.path):
        with pytest.raises(StoreBusyError, match="another repoctx index"):
            reconcile_pass(store, repo, PassOptions(wait=False))
        result = subprocess.run([sys.executable, "-m", "repoctx", "index", str(repo),
                                 "--no-wait"], capture_output=True, text=True)
        assert result.returncode == 75 and "another repoctx index" in result.stderr


def test_record_modules_read_back_what_they_wrote(repo):
    index(repo)
    with open_store(repo, repo_id="demo") as store:
        app = file_node.file_node("app.py", store.get(store.key("file", "app.py")))
        assert app.has(file_node.SYMBOLS)
        decls = symbol_record.declarations(store.get(store.key("symbol", "app.Model")))
        assert symbol_record.primary(decls)[0] == "app.py"
        assert package_node.is_package(store.get(store.key("pkg", "tests"))) is False
        assert xref_record.members(store.get(store.key("xref", "Base")), "dependents") == {
            "app.Model"}
        assert record.value(store.get(store.key()))["symbols"] == 5


def test_generated_repo_indexes_with_a_pool(tmp_path):
    root = tmp_path / "gen"
    generated_repo(root, 300)
    with open_store(root, repo_id="demo") as store:
        report = reconcile_pass(store, root, PassOptions(workers=2))
        pooled = tree_values(store)
    assert report.added == 318
    assert pooled == index_fresh(root)[1]


@pytest.mark.parametrize("enabled", [True, False])
def test_a_pass_pauses_the_cyclic_collector_and_restores_it(repo, enabled):
    seen = []

    def note(phase: str, info: dict) -> None:  # the collector calls back with two arguments
        seen.append(phase)

    gc.callbacks.append(note)
    (gc.enable if enabled else gc.disable)()
    try:
        with open_store(repo, repo_id="demo") as store:
            reconcile_pass(store, repo, PassOptions(workers=1))
        assert gc.isenabled() is enabled
    finally:
        gc.callbacks.remove(note)
        gc.enable()
    assert seen == []  # no collection ran during the pass


def test_a_node_of_the_wrong_shape_is_read_afresh_not_fatal(tmp_path):
    from tests.conftest import lww_record

    root = tmp_path / "repo"
    write(root, {"app.py": APP, "other.py": "def helper():\n    return 1\n"})
    with open_store(root, repo_id="demo") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        store.merge(store.key("file", "app.py"), lww_record(store, markers=5))  # not a list
        report = reconcile_pass(store, root, PassOptions(workers=1))
        assert any("'app.py': its node does not decode" in w for w in report.warnings)
        assert "failed" not in report.skipped
        assert file_node.load_all(store)["app.py"].markers == (
            "content", file_node.DECLS, file_node.LINKS, "symbols", "xref")
        again = reconcile_pass(store, root, PassOptions(workers=1))
        assert not again.warnings and again.unchanged == 2


def test_a_language_without_its_grammar_is_text_only_with_one_warning(tmp_path, monkeypatch):
    from repoctx.extract import Language, Symbol, register
    from repoctx.extract import registry as extract_registry

    monkeypatch.setattr(extract_registry, "_LANGUAGES", dict(extract_registry._LANGUAGES))
    installed = {"now": False}

    def headings(path, text):
        return (Symbol(f"{path}.A", "A", "class", "# A", "", 1, 1),) if "# A" in text else ()

    register(Language("markdown", (".md",), "tree-sitter-notinstalled",
                      lambda: installed["now"], headings))
    write(tmp_path, {"a.md": "# A\n\ntext\n", "b.md": "# B\n", "m.py": "def f(): pass\n"})
    with open_store(tmp_path, repo_id="demo") as store:
        report = reconcile_pass(store, tmp_path)
        indexed = set(file_node.load_all(store))
        assert {"a.md", "b.md", "m.py"} <= indexed
        grammar_warnings = [w for w in report.warnings if "tree-sitter-notinstalled" in w]
        assert len(grammar_warnings) == 1 and "2 file(s)" in grammar_warnings[0]
        assert report.symbols_written == 1  # m.py's f; the markdown files are text only
        # the grammar package arrives (an importable module): the next pass back-fills
        site = tmp_path.parent / f"{tmp_path.name}-site"
        (site / "tree_sitter_notinstalled").mkdir(parents=True)
        (site / "tree_sitter_notinstalled" / "__init__.py").write_text("")
        monkeypatch.syspath_prepend(str(site))
        installed["now"] = True
        again = reconcile_pass(store, tmp_path)
        assert again.symbols_written == 1 and not again.warnings
        assert file_node.load_all(store)["a.md"].symbols == ("a.md.A",)
