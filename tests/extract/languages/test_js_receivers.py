"""extract/languages/js_receivers: member calls on a receiver whose class the file says."""

from __future__ import annotations

from repoctx.extract import extract, receiver_chain

SOURCE = '''import { Foo as F } from "./foo.js";
import { Pkg } from "pkg";

export class A extends Base {
  m(x: F, y, p: Pkg) {
    this.n();
    new F().bar();
    x.baz();
    A.create();
    const s = new F();
    s.q();
    y.n();
    p.r();
    function inner() { this.k(); }
  }
  static create = () => new A();
  n() {
    const f = this.m;
    return f;
  }
}
'''


def targets(path: str = "src/a.ts") -> dict[str, tuple[tuple[str, str], ...]]:
    return {s.fq_name: s.targets for s in extract(path, SOURCE)}


def test_this_the_class_new_a_local_and_a_typed_parameter_are_spelled():
    got = dict(targets()["src/a.A.m"])
    assert got == {"bar": "src/foo.Foo.bar", "baz": "src/foo.Foo.baz",
                   "create": "src/a.A.create", "q": "src/foo.Foo.q", "r": "?.Pkg.r"}


def test_a_name_with_one_unspelled_use_stays_unqualified():
    # this.n() is spelled but y.n() is not: the file does not say what every n() means;
    # a nested function's this has no spelling either
    got = dict(targets()["src/a.A.m"])
    assert "n" not in got and "k" not in got


def test_a_bound_member_is_spelled_and_javascript_reads_the_same():
    assert targets()["src/a.A.n"] == (("m", "src/a.A.m"),)
    plain = "class B {\n  go() {\n    return this.stop();\n  }\n}\n"
    assert {s.fq_name: s.targets for s in extract("lib/b.mjs", plain)}["lib/b.B.go"] == (
        ("stop", "lib/b.B.stop"),)


CHAINS = '''import * as z from "zod/v3";
import { s } from "schemas";
import * as local from "./local";

test("chains", () => {
  z.ZodCatch.create(z.string()).parse(1);
  z.string().min(5).max(3);
  s.number().int();
  local.make().go();
  local.Thing.build();
});
'''


def test_package_receivers_and_call_results_are_spelled_as_chains():
    # a package's class by its name (module unknown: "?."), a call's result by its
    # callee with "()"; a relative namespace keeps its module; deeper chains stay bare
    got = dict(next(s.targets for s in extract("src/t.test.ts", CHAINS)))
    assert got == {"create": "?.ZodCatch.create", "min": "?.string().min",
                   "int": "?.number().int", "number": "?.s.number",
                   "go": "src/local.make().go", "build": "src/local.Thing.build"}
    assert {name for name, spelled in got.items() if not receiver_chain(spelled)} == {"build"}
