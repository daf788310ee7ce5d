"""retrieval/impact/receivers: which member references can run a JS/TS method."""

from __future__ import annotations

import pytest

from repoctx.retrieval.impact import receivers
from repoctx.retrieval.impact.covering import covering_tests
from tests.retrieval.small_repo import build

BASE = ("export class Base {\n  run() {\n    return this.step();\n  }\n  step() {}\n"
        "  open() {}\n}\n")
SHAPES = ("import { Base } from './base.js';\n"
          + "".join(f"export class {name} extends Base {{\n  step() {{}}\n"
                    f"  static create = () => new {name}();\n}}\n"
                    for name in ("Str", "Num", "Arr"))
          + "export class Box {\n  open() {}\n}\n")
FILES = {
    "src/base.ts": BASE,
    "src/shapes.ts": SHAPES,
    "src/str.test.ts": "import { Str } from './shapes.js';\n\n"
                       "test('str', () => {\n  Str.create().run();\n});\n",
    "src/num.test.ts": "import { Num } from './shapes.js';\n\n"
                       "test('num', () => {\n  Num.create().run();\n});\n",
    "src/box.test.ts": "import { Box } from './shapes.js';\n\n"
                       "test('box', (b: Box) => {\n  new Box().open();\n});\n",
    "src/other.test.ts": "import { Base } from './base.js';\nimport { Box } from './shapes.js';"
                         "\n\ntest('other', () => {\n  const b = new Base();\n  b.open();\n"
                         "  return Box;\n});\n",
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    with build(tmp_path_factory.mktemp("shapes"), FILES, "shapes") as opened:
        yield opened


def test_owner_ancestors_and_ambiguity(ws):
    assert receivers.owner_class(ws, "src/shapes.Str.step", "src/shapes.ts") == "src/shapes.Str"
    assert receivers.owner_class(ws, "src/base.Base", "src/base.ts") is None
    assert receivers.ancestors(ws, "src/shapes.Str") == {"Str", "Base"}
    assert receivers.ambiguous(ws, "step") and not receivers.ambiguous(ws, "open")
    assert receivers.entry_points(ws, "src/shapes.Str", "src/shapes.ts") == [
        ("src/shapes.Str", "src/shapes.ts"), ("src/shapes.Str.create", "src/shapes.ts")]


def test_may_run_reads_the_spellings(ws):
    above = {"Box"}
    fq = "src/shapes.Box.open"
    assert receivers.may_run(ws, {fq}, fq, above, False)
    assert receivers.may_run(ws, set(), fq, above, False)  # receiver unknown
    assert not receivers.may_run(ws, {"src/shapes.Str.step"}, fq, above, False)
    assert receivers.may_run(ws, {"src/shapes.Num.open"}, fq, above, False)  # undeclared
    assert not receivers.may_run(ws, {"src/base.Base.step"}, "src/shapes.Str.step",
                                 {"Str", "Base"}, True)  # every subclass answers it


def test_a_method_many_classes_declare_is_covered_through_its_class(ws):
    # Str.step runs from Base.run's this.step(), as every subclass's does: only the
    # tests reaching Str (its create) are named, not Num's
    got = {e["path"] for e in covering_tests(ws, [("src/shapes.Str.step", "src/shapes.ts")], 9)
           if e["distance"] <= 4}
    assert got == {"src/str.test.ts"}


def test_a_use_spelled_to_another_class_is_left_out(ws):
    got = {e["path"] for e in covering_tests(ws, [("src/shapes.Box.open", "src/shapes.ts")], 9)
           if e["distance"] == 0}
    assert got == {"src/box.test.ts"}  # b.open() on a Base runs no Box.open


SCHEMAS = ("".join(f"export class {name} {{\n  min(n: number) {{\n    return this;\n  }}\n"
                   f"  static create = (): {name} => new {name}();\n}}\n"
                   for name in ("Str", "Num", "Arr"))
           + "const strType = Str.create;\nconst numType = Num.create;\n"
           + "export { strType as string, numType as number };\n"
           + "export type Shape = Str | Num;\n")
CHAINED = {
    "src/types.ts": SCHEMAS,
    "src/index.ts": "export * from './types.js';\n",
    "src/str.test.ts": "import * as z from './index.js';\n\n"
                       "test('str', () => {\n  z.string().min(5);\n});\n",
    "src/num.test.ts": "import * as z from './index.js';\n\n"
                       "test('num', () => {\n  z.number().min(1);\n});\n",
}


@pytest.fixture(scope="module")
def chained(tmp_path_factory):
    with build(tmp_path_factory.mktemp("chained"), CHAINED, "chained") as opened:
        yield opened


def test_a_call_result_resolves_through_the_export_binding_and_return_type(chained):
    exported = {"string": "strType", "number": "numType"}
    assert receivers.resolve_chain(chained, "src/index.string().min", "src/types",
                                   exported) == "src/types.Str.min"
    assert receivers.resolve_chain(chained, "?.Num.min", "src/types", {}) == "src/types.Num.min"
    assert receivers.resolve_chain(chained, "?.nowhere().min", "src/types", {}) is None


def test_a_chained_use_of_another_class_is_left_out(chained):
    # min is declared by three classes; z.number().min(1) runs Num's, not Str's
    got = {e["path"] for e in covering_tests(chained, [("src/types.Str.min", "src/types.ts")], 9)
           if e["distance"] == 0}
    assert got == {"src/str.test.ts"}


def test_type_declarations_run_nothing():
    assert receivers.type_only("src/types.ts", "type Shape = Str | Num")
    assert receivers.type_only("src/types.ts", "export interface Def extends Base")
    assert not receivers.type_only("src/types.ts", "class Str")
    assert not receivers.type_only("pkg/types.py", "type Alias = int")  # Python's runs
