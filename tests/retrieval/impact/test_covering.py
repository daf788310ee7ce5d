"""retrieval/impact/covering: the test files that import, call or are named after a definition."""

import time

import pytest

from repoctx.retrieval.impact.covering import FAN_OUT, MAX_DEPTH, covering_tests
from repoctx.retrieval.impact.related import related
from tests.retrieval.small_repo import build, index

FILES = {
    "pkg/__init__.py": "from .calc import price\n",
    "pkg/calc.py": "def price(x):\n    return x * 2\n\n\ndef total(xs):\n"
                   "    return sum(price(x) for x in xs)\n\n\ndef tax(x):\n    return x\n",
    "pkg/cart.py": "from pkg.calc import total\n\n\ndef checkout(xs):\n    return total(xs)\n",
    "pkg/sessions.py": "class SessionInterface:\n    def open_session(self, app, request):\n"
                       "        return None\n",
    "other/calc.py": "def price():\n    return 0\n",
    "tests/test_calc.py": "from pkg.calc import price\n\n\ndef test_doubles():\n"
                          "    assert price(1) == 2\n",
    "tests/test_reexport.py": "from pkg import price\n\n\ndef test_from_the_package():\n"
                              "    assert price(2) == 4\n",
    "tests/fixtures/conftest.py": "import pytest\n\nimport pkg.calc as calc\n\n\n"
                                  "@pytest.fixture\ndef calc_module():\n    return calc\n\n\n"
                                  "@pytest.fixture\ndef test_amount():\n"
                                  "    return calc.price(1)\n",
    "tests/fixtures/test_fixture.py": "def test_through_the_fixture(calc_module):\n"
                                      "    assert calc_module.price(1) == 2\n",
    "tests/test_cart.py": "from pkg.cart import checkout\n\n\ndef test_checkout():\n"
                          "    assert checkout([1]) == 2\n",
    "tests/test_other.py": "from other.calc import price\n\n\ndef test_other_zero():\n"
                           "    assert price() == 0\n",
    "tests/test_tax.py": "from pkg.calc import tax\n\n\ndef test_tax_is_kept():\n"
                         "    assert tax(1) == 1\n",
    "tests/test_session_interface.py": (
        "import pkg\nfrom pkg.sessions import SessionInterface\n\n\n"
        "def test_open_session_with_endpoint():\n"
        "    class MySessionInterface(SessionInterface):\n"
        "        def open_session(self, app, request):\n            return {}\n\n"
        "    app = pkg.App()\n    app.session_interface = MySessionInterface()\n"),
    "tests/test_broken.py": "from pkg.calc import price\n\ndef test_broken(:\n    price(\n",
    "cyc/a.py": "from cyc.b import pong\n\n\ndef ping(n):\n    return n and pong(n - 1)\n",
    "cyc/b.py": "from cyc.a import ping\n\n\ndef pong(n):\n    return n and ping(n - 1)\n",
    "tests/test_cyc.py": "from cyc.a import ping\n\n\ndef test_ping():\n    assert not ping(3)\n",
}


@pytest.fixture(scope="module")
def calc_ws(tmp_path_factory):
    ws = build(tmp_path_factory.mktemp("calc"), FILES, "calc")
    yield ws
    ws.close()


def by_path(entries):
    return {e["path"]: (e["reason"], e["distance"]) for e in entries}


def test_a_test_importing_the_module_and_calling_the_function(calc_ws):
    got = covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 20)
    assert got[0]["reason"] == "imports" and got[0]["distance"] == 0
    found = by_path(got)
    assert found["tests/test_calc.py"] == ("imports", 0)
    assert found["tests/test_reexport.py"] == ("imports", 0)  # through pkg/__init__.py
    assert found["tests/fixtures/test_fixture.py"] == ("imports", 0)  # through conftest.py
    assert "tests/fixtures/conftest.py" not in found  # a test-named fixture runs no test
    entry = next(e for e in got if e["path"] == "tests/test_calc.py")
    assert entry["names"] == ["tests.test_calc.test_doubles"]


def test_a_test_reached_through_callers(calc_ws):
    got = by_path(covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 20))
    # price <- total (same module) <- checkout (imports pkg.calc) <- test_checkout
    assert got["tests/test_cart.py"] == ("calls", 2)


def test_a_namesake_of_a_module_the_test_does_not_import_is_left_out(calc_ws):
    got = by_path(covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 20))
    assert "tests/test_other.py" not in got
    other = by_path(covering_tests(calc_ws, [("other.calc.price", "other/calc.py")], 20))
    assert other == {"tests/test_other.py": ("imports", 0)}


def test_ranked_by_distance_then_evidence_and_bounded_by_k(calc_ws):
    got = covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 20)
    keys = [(e["distance"], e["reason"] != "imports") for e in got]
    assert keys == sorted(keys)
    assert len({e["path"] for e in got}) == len(got)
    assert covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 2) == got[:2]
    assert covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 0) == []


def test_a_test_of_another_name_of_the_module_comes_last(calc_ws):
    got = covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 20)
    assert got[-1] == {"path": "tests/test_tax.py", "names": [], "reason": "imports",
                       "distance": MAX_DEPTH + 1}


def test_a_flask_like_file_lists_the_test_importing_it(calc_ws):
    got = related(calc_ws, path="pkg/sessions.py")["tests"]
    # the test subclasses SessionInterface in a nested class it then instantiates: the
    # class is the test file's own code, so the file imports and uses the definition
    assert [(t["path"], t["reason"]) for t in got] == [
        ("tests/test_session_interface.py", "imports")]


def test_a_broken_test_module_and_an_import_cycle_do_not_break_the_answer(calc_ws):
    got = by_path(covering_tests(calc_ws, [("cyc.b.pong", "cyc/b.py")], 20))
    assert got == {"tests/test_cyc.py": ("calls", 1)}
    assert "tests/test_calc.py" in by_path(
        covering_tests(calc_ws, [("pkg.calc.price", "pkg/calc.py")], 20))


def test_a_bare_simple_name_stands_for_each_definition_of_it(calc_ws):
    got = by_path(covering_tests(calc_ws, [("price", None)], 20))
    assert got["tests/test_calc.py"] == ("imports", 0)  # pkg.calc.price
    assert got["tests/test_other.py"] == ("imports", 0)  # other.calc.price
    # a name nothing declares (pkg.App): the tests referring to it, unchecked
    assert by_path(covering_tests(calc_ws, [("App", None)], 20)) == {
        "tests/test_session_interface.py": ("name", 1)}


def test_a_definition_nothing_refers_to_or_an_unknown_file(calc_ws):
    assert covering_tests(calc_ws, [("nowhere.nothing", "nowhere.py")], 20) == []
    assert covering_tests(calc_ws, [], 20) == []


def fan_out_files(count=1000):
    files = {"lib/__init__.py": "", "lib/http.py": "def get(url):\n    return url\n"}
    for i in range(count):
        files[f"app/m{i}.py"] = (f"from lib.http import get\n\n\ndef f{i}():\n"
                                 f"    return get('{i}')\n")
        files[f"tests/test_m{i}.py"] = (f"from app.m{i} import f{i}\n\n\ndef test_f{i}(d):\n"
                                        f"    assert f{i}() and d.get('{i}')\n")
    return files


@pytest.fixture(scope="module")
def fan_ws(tmp_path_factory):
    ws = build(tmp_path_factory.mktemp("fan"), fan_out_files(), "fan")
    yield ws
    ws.close()


def test_a_name_every_file_uses_stays_bounded_and_fast(fan_ws):
    with fan_ws.pinned():  # the process's first query also decodes and checks every record
        covering_tests(fan_ws, [("lib.http.get", "lib/http.py")], 200)
    start = time.perf_counter()
    with fan_ws.pinned():
        got = covering_tests(fan_ws, [("lib.http.get", "lib/http.py")], 200)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5  # 5x the 100 ms aimed at
    # no test imports lib.http: each is reached through one caller, at most FAN_OUT of them
    assert got and {(e["reason"], e["distance"]) for e in got} == {("calls", 1)}
    assert len(got) <= FAN_OUT


def test_a_test_beside_a_src_layout_imports_the_package_from_src(tmp_path):
    files = {"src/lib/__init__.py": "from .core import run\n",
             "src/lib/core.py": "def run():\n    return 1\n",
             "tests/test_run.py": "import lib\n\n\ndef test_runs():\n    assert lib.run()\n"}
    with build(tmp_path, files, "srclayout") as ws:
        assert covering_tests(ws, [("lib.core.run", "src/lib/core.py")], 5) == [
            {"path": "tests/test_run.py", "names": ["tests.test_run.test_runs"],
             "reason": "imports", "distance": 0}]


TS_FILES = {
    "package.json": '{"name": "shop", "exports": {".": {"source": "./src/index.ts", '
                    '"import": "./dist/index.js"}}}',
    "src/index.ts": 'export * from "./external.js";\n',
    "src/external.ts": 'export { price } from "./calc.js";\n',
    "src/calc.ts": "export function price(x: number): number {\n  return x * 2;\n}\n",
    "src/other.ts": "export function price(): number {\n  return 0;\n}\n",
    "tests/price.test.ts": 'import { price } from "shop";\n\ntest("doubles", () => {\n'
                           "  expect(price(1)).toBe(2);\n});\n",
}


def test_a_typescript_test_reaches_the_source_through_its_package_and_barrels(tmp_path):
    ws = build(tmp_path, TS_FILES, "shop")
    try:
        assert by_path(covering_tests(ws, [("src/calc.price", "src/calc.ts")], 20)) == {
            "tests/price.test.ts": ("imports", 0)}
        assert covering_tests(ws, [("src/other.price", "src/other.ts")], 20) == []
    finally:
        ws.close()


ALIASED = {
    "package.json": '{"name": "schema", "exports": {".": "./src/index.ts"}}',
    "src/index.ts": 'import * as z from "./external.js";\nexport * from "./external.js";\n'
                    "export { z };\n",
    "src/external.ts": 'export * from "./types.js";\n',
    "src/types.ts": "export class Str {\n  static create = () => new Str();\n"
                    "  min(n: number) {\n    return this;\n  }\n}\n"
                    "const stringType = Str.create;\nexport { stringType as string };\n",
    "src/string.test.ts": 'import * as z from "schema";\n\n'
                          "const five = z.string().min(5);\n\n"
                          'test("parses", () => {\n  five.parse("12345");\n});\n',
}


def test_a_test_calling_the_exported_name_covers_the_local_definition(tmp_path):
    with build(tmp_path, ALIASED, "aliased") as ws:
        # z.string() is stringType, which is Str.create; the suite's module-level const
        # holding the schema counts for the file's tests.
        assert by_path(covering_tests(ws, [("src/types.stringType", "src/types.ts")], 5)) == {
            "src/string.test.ts": ("imports", 0)}
        assert by_path(covering_tests(ws, [("src/types.Str.create", "src/types.ts")], 5)) == {
            "src/string.test.ts": ("calls", 1)}
        assert covering_tests(ws, [("src/types.Str.min", "src/types.ts")], 5)[0]["names"] == [
            "src/string.test.five"]


def test_what_a_query_kept_of_the_imports_follows_a_new_index(tmp_path):
    ws = build(tmp_path, {"pkg/__init__.py": "", "pkg/calc.py": FILES["pkg/calc.py"],
                          "tests/test_calc.py": "def test_kept():\n    assert True\n"}, "kept")
    try:
        target = [("pkg.calc.tax", "pkg/calc.py")]
        assert covering_tests(ws, target, 5) == []
        (tmp_path / "tests" / "test_calc.py").write_text(
            "from pkg.calc import tax\n\n\ndef test_kept():\n    assert tax(1) == 1\n")
        index(ws.store, ws.root)
        assert [e["path"] for e in covering_tests(ws, target, 5)] == ["tests/test_calc.py"]
    finally:
        ws.close()
