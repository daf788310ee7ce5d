"""retrieval/impact/resolve: spellings to definitions, and dependents split by match."""

import pytest

from repoctx.extract.languages import python_bindings
from repoctx.reconcile.nodes.symbol_record import Declaration
from repoctx.retrieval.impact.related import related
from repoctx.retrieval.impact.resolve import canonical, dependents_of, module_files
from tests.retrieval.context_repo import write
from tests.retrieval.small_repo import build, index

PYTHON = {
    "pkg/__init__.py": "from .helpers import url_for\nfrom .app import App\n",
    "pkg/helpers.py": ("import werkzeug.utils\n\n\ndef url_for(endpoint):\n    return endpoint\n"
                       "\n\ndef send_file(path):\n    return werkzeug.utils.send_file(path)\n"),
    "pkg/base.py": "class Base:\n    def render(self):\n        return 1\n",
    "pkg/app.py": ("from pkg.base import Base\n\n\nclass App(Base):\n"
                   "    def url_for(self, endpoint):\n        return endpoint\n\n"
                   "    def route(self):\n        return self.url_for('x') + self.render()\n"),
    "pkg/views.py": ("from pkg import url_for\nfrom . import helpers\n\n\ndef index():\n"
                     "    return url_for('index')\n\n\ndef other():\n"
                     "    return helpers.url_for('o')\n"),
    "pkg/admin.py": ("from pkg.app import App\n\n\ndef admin(app: App):\n"
                     "    return app.url_for('admin')\n"),
    "pkg/proxy.py": ("from pkg.app import App\n\ncurrent = App()\n\n\ndef go():\n"
                     "    return current.url_for('x')\n"),
    "lib/ext/tools.py": "def url_for(x):\n    return x\n",
}


def deps(ws, fq):
    return [(d["symbol"], d["match"]) for d in dependents_of(ws, fq)]


@pytest.fixture(scope="module")
def py_ws(tmp_path_factory):
    with build(tmp_path_factory.mktemp("resolve"), PYTHON, repo_id="resolve") as ws:
        yield ws


def test_callers_of_each_url_for_are_told_apart(py_ws):
    assert deps(py_ws, "pkg.helpers.url_for") == [
        ("pkg.views.index", "resolved"),   # through the package's re-export
        ("pkg.views.other", "resolved"),   # helpers.url_for after `from . import helpers`
        ("pkg.admin.admin", "name"),       # app.url_for: the file does not say which
        ("pkg.proxy.go", "name")]          # through a variable: its type is not known
    assert deps(py_ws, "pkg.app.App.url_for") == [
        ("pkg.app.App.route", "resolved"), ("pkg.admin.admin", "name"),
        ("pkg.proxy.go", "name")]


def test_a_call_to_an_outside_namesake_is_not_a_dependent(py_ws):
    assert canonical(py_ws, "werkzeug.utils.send_file") == "werkzeug.utils.send_file"
    assert deps(py_ws, "pkg.helpers.send_file") == []


def test_canonical_follows_re_exports_bases_and_tail_layouts(py_ws):
    assert canonical(py_ws, "pkg.url_for") == "pkg.helpers.url_for"
    assert canonical(py_ws, "pkg.App.render") == "pkg.base.Base.render"
    assert canonical(py_ws, "ext.tools.url_for") == "lib.ext.tools.url_for"
    assert canonical(py_ws, "pkg.nothing.here") == "pkg.nothing.here"
    assert canonical(py_ws, "") == ""
    assert module_files(py_ws)["ext.tools"] == "lib/ext/tools.py"


def test_related_lists_resolved_dependents_first(py_ws):
    got = related(py_ws, symbol="pkg.helpers.url_for")
    assert [d["match"] for d in got["dependents"]] == ["resolved", "resolved", "name", "name"]
    simple = related(py_ws, symbol="url_for")  # a simple name says no definition
    assert {d["match"] for d in simple["dependents"]} == {"name"}


def test_a_re_export_changed_by_a_new_pass_changes_the_answer(tmp_path):
    ws = build(tmp_path, PYTHON, repo_id="reexport")
    try:
        assert ("pkg.views.index", "resolved") in deps(ws, "pkg.helpers.url_for")
        write(tmp_path, {"pkg/__init__.py": "from ext.tools import url_for\n"})
        index(ws.store, tmp_path)
        assert ("pkg.views.index", "resolved") in deps(ws, "lib.ext.tools.url_for")
        assert "pkg.views.index" not in dict(deps(ws, "pkg.helpers.url_for"))
    finally:
        ws.close()


def test_an_older_store_without_spellings_answers_by_name(tmp_path, monkeypatch):
    """An older writer stored seven elements and no ``to:`` fields."""
    old_wire = Declaration.wire
    monkeypatch.setattr(Declaration, "wire", lambda self: old_wire(self)[:7])
    monkeypatch.setattr(python_bindings, "spelling", lambda *args: None)
    ws = build(tmp_path, PYTHON, repo_id="old")
    try:
        got = deps(ws, "pkg.helpers.url_for")
        assert {m for _, m in got} == {"name"}
        assert {s for s, _ in got} >= {"pkg.views.index", "pkg.app.App.route"}
    finally:
        ws.close()


POLYGLOT = {
    "src/a.ts": "export function render(x: number): number {\n  return x;\n}\n",
    "src/b.ts": "export function render(x: number): number {\n  return x + 1;\n}\n",
    "src/use_a.ts": ("import { render } from './a';\n\nexport function showA(): number {\n"
                     "  return render(1);\n}\n"),
    "src/use_b.ts": ("import { render } from './b';\n\nexport function showB(): number {\n"
                     "  return render(2);\n}\n"),
    "src/none.ts": "export function loose(): number {\n  return render(3);\n}\n",
    "go.mod": "module example.com/m\n\ngo 1.21\n",
    "store/store.go": "package store\n\nfunc Get(k string) string {\n\treturn k\n}\n",
    "store/util.go": "package store\n\nfunc Twice(k string) string {\n\treturn Get(k)\n}\n",
    "cache/cache.go": "package cache\n\nfunc Get(k string) string {\n\treturn k\n}\n",
    "cmd/main.go": ("package main\n\nimport \"example.com/m/store\"\n\nfunc main() {\n"
                    "\tstore.Get(\"x\")\n}\n"),
    "other/other.go": ("package other\n\nimport \"example.com/m/cache\"\n\nfunc Use() {\n"
                       "\tcache.Get(\"x\")\n}\n"),
    "java/com/x/A.java": "package com.x;\n\nclass A {\n  static int run() { return 1; }\n}\n",
    "java/com/y/B.java": "package com.y;\n\nclass B {\n  static int run() { return 2; }\n}\n",
    "java/com/z/UseA.java": ("package com.z;\n\nimport com.x.A;\n\npublic class UseA {\n"
                             "  int go() { return A.run(); }\n}\n"),
    "Cargo.toml": "[package]\nname = \"m\"\n",
    "src/lib.rs": "mod a;\nmod b;\nmod use_a;\n",
    "src/a.rs": "pub fn run() -> i32 { 1 }\n",
    "src/b.rs": "pub fn run() -> i32 { 2 }\n",
    "src/use_a.rs": "use crate::a::run;\n\npub fn go() -> i32 { run() }\n",
}


@pytest.fixture(scope="module")
def poly_ws(tmp_path_factory):
    with build(tmp_path_factory.mktemp("poly"), POLYGLOT, repo_id="poly") as ws:
        yield ws


def test_typescript_dependents_by_the_file_they_import(poly_ws):
    assert deps(poly_ws, "src/a.render") == [("src/use_a.showA", "resolved"),
                                            ("src/none.loose", "name")]
    assert deps(poly_ws, "src/b.render") == [("src/use_b.showB", "resolved"),
                                            ("src/none.loose", "name")]


def test_go_dependents_by_package(poly_ws):
    assert deps(poly_ws, "store.Get") == [("cmd.main", "resolved"),
                                          ("store.Twice", "resolved")]  # its own package
    assert deps(poly_ws, "cache.Get") == [("other.Use", "resolved"), ("store.Twice", "name")]


def test_java_imports_and_rust_use_resolve_their_dependents(poly_ws):
    assert deps(poly_ws, "com.x.A.run") == [("com.z.UseA.go", "resolved")]
    assert deps(poly_ws, "com.y.B.run") == []  # UseA imports the other class
    assert deps(poly_ws, "crate::a::run") == [("crate::use_a::go", "resolved")]
    assert deps(poly_ws, "crate::b::run") == []


def test_a_module_below_a_package_is_not_named_by_its_tail(tmp_path):
    files = {"flask/__init__.py": "", "flask/json/__init__.py": "def dumps(x):\n    return x\n",
             "flask/app.py": "import json\n\n\ndef run(x):\n    return json.dumps(x)\n"}
    ws = build(tmp_path, files, repo_id="tail")
    try:
        assert "json" not in module_files(ws)
        assert canonical(ws, "json.dumps") == "json.dumps"
        assert deps(ws, "flask.json.dumps") == []  # the standard library's namesake
    finally:
        ws.close()
