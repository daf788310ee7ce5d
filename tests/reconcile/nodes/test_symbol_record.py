"""reconcile/nodes/symbol_record: declarations per file, declare/undeclare, the primary one."""

from dataclasses import replace

from repoctx.crdt import or_map, record
from repoctx.extract import Symbol
from repoctx.reconcile.nodes import symbol_record as sr
from repoctx.reconcile.nodes.symbol_record import Declaration


def sym(fq, start, end, refs=(), kind="function"):
    return Symbol(fq, fq.rsplit(".", 1)[-1], kind, f"def {fq}()", "doc", start, end, refs)


TEXT = "".join(f"line {n}\n" for n in range(1, 21))


def test_declarations_of_folds_repeated_defs():
    got = sr.declarations_of("pkg/m.py", [sym("pkg.m.f", 7, 9, ("b",)),
                                          sym("pkg.m.f", 3, 5, ("a",)), sym("pkg.m.g", 11, 12)],
                             TEXT)
    assert replace(got["pkg.m.f"], digest="") == Declaration(
        "function", "def pkg.m.f()", "doc", 3, 9, ("a", "b"), False)
    assert got["pkg.m.g"].refs == () and set(got) == {"pkg.m.f", "pkg.m.g"}


def test_overload_stubs_resolve_to_their_implementation():
    stubs = [Symbol("pkg.m.f", "f", "function", f"def f(x: {t}) -> {t}", "", line, line,
                    (t,), overload=True) for line, t in ((3, "int"), (5, "str"))]
    impl = Symbol("pkg.m.f", "f", "function", "def f(x)", "Convert.", 7, 20, ("g",))
    got = sr.declarations_of("pkg/m.py", [*stubs, impl], TEXT)["pkg.m.f"]
    assert (got.signature, got.doc, got.start_line, got.end_line) == ("def f(x)", "Convert.",
                                                                      7, 20)
    assert got.refs == ("g", "int", "str")  # the stubs' annotations still count
    only_stubs = sr.declarations_of("pkg/m.pyi", stubs, TEXT)["pkg.m.f"]
    assert (only_stubs.signature, only_stubs.start_line, only_stubs.end_line) == (
        "def f(x: int) -> int", 3, 5)


def test_a_test_name_is_a_test_only_in_a_test_file():
    test = sym("tests.test_m.test_run", 1, 2)
    assert sr.declarations_of("tests/test_m.py", [test], TEXT)["tests.test_m.test_run"].is_test
    assert not sr.declarations_of("pkg/m.py", [test], TEXT)["tests.test_m.test_run"].is_test


def test_declarations_carry_the_digest_of_their_own_text():
    calc = "def price(x):\n    return x * 2\n\n\nclass C:\n    def f(self):\n        pass\n"
    symbols = [sym("pkg.m.price", 1, 2), sym("pkg.m.C", 5, 7, kind="class"),
               sym("pkg.m.C.f", 6, 7, kind="method")]
    got = sr.declarations_of("pkg/m.py", symbols, calc)
    assert all(len(d.digest) == 16 for d in got.values())
    assert len({d.digest for d in got.values()}) == 3
    moved = [replace(s, start_line=s.start_line + 2, end_line=s.end_line + 2) for s in symbols]
    again = sr.declarations_of("pkg/m.py", moved, "# new\n\n" + calc)
    assert {fq: d.digest for fq, d in again.items()} == {fq: d.digest for fq, d in got.items()}
    edited = sr.declarations_of("pkg/m.py", symbols, calc.replace("pass", "return 1"))
    assert {fq for fq in got if got[fq].digest != edited[fq].digest} == {"pkg.m.C.f"}


D1 = Declaration("class", "class A", "", 1, 4, ("B",), False, "00ff00ff00ff00ff")
D2 = Declaration("class", "class A(B)", "", 1, 5, ("B",), False, "11ee11ee11ee11ee")


def test_the_digest_is_wire_element_seven_and_older_tuples_decode_without_it():
    assert D1.wire()[7] == D1.digest and len(D1.wire()) == 9  # 8: targets
    old = or_map.put(or_map.empty(), "pkg/a.py", D1.wire()[:7], 1, "r1")
    rec = record.write({sr.DECL: old}, 1)
    assert sr.declarations(rec) == {"pkg/a.py": replace(D1, digest="")}
    assert sr.declaration_at(rec, "pkg/a.py").digest == ""
    # a declaration of the current shape replaces the older one: it is not "already there"
    assert sr.declare_delta(rec, "pkg/a.py", D1, 2, "r1") is not None


def test_declare_then_undeclare_until_the_last_file_goes():
    rec = sr.declare_delta(None, "pkg/a.py", D1, 1, "r1")
    rec = record.merge(rec, sr.declare_delta(rec, "pkg/a.pyi", D2, 2, "r1"))
    assert sr.declarations(rec) == {"pkg/a.py": D1, "pkg/a.pyi": D2}
    assert sr.declare_delta(rec, "pkg/a.py", D1, 3, "r1") is None  # already recorded
    rec = record.merge(rec, sr.undeclare_delta(rec, "pkg/a.py", 4))
    assert sr.declarations(rec) == {"pkg/a.pyi": D2} and not record.is_tombstone(rec)
    assert sr.undeclare_delta(rec, "pkg/a.py", 5) is None
    rec = record.merge(rec, sr.undeclare_delta(rec, "pkg/a.pyi", 6))
    assert sr.declarations(rec) == {} and record.is_tombstone(rec)
    assert sr.declarations(None) == {}


def test_primary_prefers_source_over_stub_then_path_order():
    assert sr.primary({"a/x.pyi": D2, "b/x.py": D1}) == ("b/x.py", D1)
    assert sr.primary({"b/x.py": D2, "a/x.py": D1}) == ("a/x.py", D1)
    assert sr.primary({"a/x.pyi": D2}) == ("a/x.pyi", D2)
    assert sr.primary({}) is None


def test_replicas_of_both_shapes_converge():
    older = record.write({sr.DECL: or_map.put(or_map.empty(), "pkg/a.py", D1.wire()[:7], 1,
                                              "r1")}, 1)
    newer = sr.declare_delta(None, "pkg/a.py", D2, 2, "r2")
    one, other = record.merge(older, newer), record.merge(newer, older)
    assert sr.declarations(one) == sr.declarations(other)
    assert set(sr.declarations(one)) == {"pkg/a.py"}


def test_targets_fold_per_symbol_and_round_trip_the_wire():
    a = Symbol("pkg.m.f", "f", "function", "def f()", "", 1, 2, ("g",),
               targets=(("g", "pkg.n.g"),))
    b = Symbol("pkg.m.f", "f", "function", "def f()", "", 4, 5, ("h",),
               targets=(("h", "x.h"), ("g", "pkg.n.g")))
    text = "def f():\n    g()\n\ndef f():\n    h()\n"
    decl = sr.declarations_of("pkg/m.py", [a, b], text)["pkg.m.f"]
    assert decl.targets == (("g", "pkg.n.g"), ("h", "x.h")) and len(decl.digest) == 16
    rec = record.merge(record.empty(), sr.declare_delta(None, "pkg/m.py", decl, 1, "r1"))
    assert sr.declarations(rec) == {"pkg/m.py": decl}


def test_an_older_writers_shorter_tuple_still_decodes():
    old = ("function", "def f()", "", 1, 2, ("g",), False)
    decl = sr._declaration(old)
    assert (decl.refs, decl.digest, decl.targets) == (("g",), "", ())
    with_digest = sr._declaration((*old, "abc"))
    assert (with_digest.digest, with_digest.targets) == ("abc", ())
