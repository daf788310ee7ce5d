from __future__ import annotations

from types import ModuleType

import pytest

from repoctx.extract import CLASS, FUNCTION, METHOD, VARIABLE, Symbol, extract
from repoctx.extract.languages.python import extract_python

UNPARSED_BY_AST = {"shop/broken.py", "shop/modern.py"}


def symbols_of(sample_sources: list[tuple[str, str]], path: str) -> dict[str, Symbol]:
    text = dict(sample_sources)[path]
    return {symbol.fq_name: symbol for symbol in extract(path, text)}


def one(source: str, fq_name: str, path: str = "m.py") -> Symbol:
    matches = [symbol for symbol in extract_python(path, source) if symbol.fq_name == fq_name]
    assert len(matches) == 1, [symbol.fq_name for symbol in extract_python(path, source)]
    return matches[0]


# -- the quality gate: agreement with Python's ast ------------------------------------------


def test_sample_matches_ast_exactly(ast_oracle: ModuleType, sample_sources) -> None:
    score = ast_oracle.score_sources(sample_sources)
    assert score.files == len(sample_sources) - len(UNPARSED_BY_AST)
    assert score.expected > 70
    assert (score.missing, score.spurious) == ([], [])
    assert score.precision >= 0.995 and score.recall >= 0.995


def test_sample_has_the_files_ast_rejects(sample_sources) -> None:
    assert {path for path, _ in sample_sources} >= UNPARSED_BY_AST


def test_oracle_counts_a_mismatch(ast_oracle: ModuleType) -> None:
    score = ast_oracle.Score()
    expected = ast_oracle.reference_definitions("m.py", "class A:\n    def f(self): pass\n")
    found = ast_oracle.extracted_definitions("m.py", "class A:\n    pass\n")
    score.add("m.py", expected, found)
    assert (score.precision, score.recall) == (1.0, 0.5)
    assert score.missing == [("m.py", ("m.A.f", "method", 2))]


# -- kinds and qualified names ---------------------------------------------------------------


def test_kinds_and_qualified_names(sample_sources) -> None:
    symbols = symbols_of(sample_sources, "shop/payments/__init__.py")
    kinds = {name: symbol.kind for name, symbol in symbols.items()}
    assert kinds["shop.payments.Ledger"] == CLASS
    assert kinds["shop.payments.Ledger.get"] == METHOD
    assert kinds["shop.payments.Ledger.merge"] == METHOD  # defined in an if block of the class
    assert kinds["shop.payments.Ledger.quantize"] == METHOD  # defined in a try block
    assert kinds["shop.payments.Ledger.Entry.Meta"] == CLASS
    assert kinds["shop.payments.Ledger.Entry.settle"] == METHOD
    assert kinds["shop.payments.Ledger.Entry.settle.confirm"] == FUNCTION
    assert kinds["shop.payments.audited.wrap.inner"] == FUNCTION
    assert kinds["shop.payments.make_class.Local.method.helper.Deep"] == CLASS
    assert kinds["shop.payments.square"] == VARIABLE  # a lambda bound to a name
    assert "shop.payments.Ledger.to_cents" not in kinds  # class attributes are not symbols


def test_every_definition_is_reported_once_per_def() -> None:
    source = "if X:\n    def f(): pass\nelse:\n    def f(): pass\n"
    assert [(s.fq_name, s.start_line) for s in extract_python("m.py", source)] == [
        ("m.f", 2), ("m.f", 4)]


def test_overload_stubs_are_marked_and_the_implementation_is_not() -> None:
    source = ("import typing\nfrom typing import overload\n@overload\ndef f(x: int) -> int: ...\n"
              "@typing.overload\ndef f(x: str) -> str: ...\n@cache\ndef f(x):\n    return x\n"
              "@overloaded\ndef g(): pass\n")
    assert [(s.name, s.start_line, s.overload) for s in extract_python("m.py", source)] == [
        ("f", 4, True), ("f", 6, True), ("f", 8, False), ("g", 11, False)]


def test_symbols_come_in_source_order(sample_sources) -> None:
    for path, text in sample_sources:
        lines = [symbol.start_line for symbol in extract(path, text)]
        assert lines == sorted(lines), path


def test_text_that_only_looks_like_code_declares_nothing(sample_sources) -> None:
    names = set(symbols_of(sample_sources, "shop/tricky.py"))
    assert not {n for n in names if "not_a" in n or "NotAClass" in n or "ommented" in n}


def test_soft_keywords_and_python2_keywords_as_names(sample_sources) -> None:
    symbols = symbols_of(sample_sources, "shop/tricky.py")
    for name in ("type", "match", "print", "exec", "case", "case.match", "case.type"):
        assert f"shop.tricky.{name}" in symbols


# -- spans -----------------------------------------------------------------------------------


def test_start_line_is_the_def_line_not_the_decorator_line() -> None:
    source = "@first\n@second(\n    1,\n)\nasync def f():\n    pass\n"
    symbol = one(source, "m.f")
    assert (symbol.start_line, symbol.end_line) == (5, 6)


def test_crlf_and_lone_cr_count_lines_like_ast() -> None:
    assert one("x = 1\r\n\r\ndef f():\r\n    pass\r\n", "m.f").start_line == 3
    assert one("x = 1\r\rdef f():\r    pass\r", "m.f").start_line == 3


# -- signatures and docstrings ---------------------------------------------------------------


def test_signatures_are_one_collapsed_line(sample_sources) -> None:
    symbols = symbols_of(sample_sources, "shop/payments/__init__.py")
    assert symbols["shop.payments.Ledger"].signature == "class Ledger(dict, metaclass=type)"
    assert (symbols["shop.payments.Ledger.post"].signature
            == 'def post(amount: float, *, memo: str = "") -> "Ledger"')
    assert symbols["shop.payments.reconcile"].signature == (
        "async def reconcile(ledger: Ledger) -> None")
    assert symbols["shop.payments.square"].signature == (
        "square = lambda x: x * x")


def test_signature_drops_comments_continuations_and_tabs(sample_sources) -> None:
    symbols = symbols_of(sample_sources, "shop/tricky.py")
    assert symbols["shop.tricky.continued"].signature == "def continued(first, second)"
    assert symbols["shop.tricky.tabbed"].signature == "def tabbed(a, b)"
    assert symbols["shop.tricky.Semi"].signature == "class Semi"


def test_signature_is_bounded() -> None:
    params = ", ".join(f"parameter_{i}" for i in range(60))
    signature = one(f"def f({params}):\n    pass\n", "m.f").signature
    assert len(signature) == 200 and signature.endswith("…")


@pytest.mark.parametrize(("body", "doc"), [
    ('"""Summary line.\n\n    Details."""', "Summary line."),
    ("'''\n    Starts on the second line.\n    '''", "Starts on the second line."),
    ('r"""Raw \\d text."""', "Raw \\d text."),
    ('"single"', "single"),
    ('"implicit" " concatenation"', "implicit"),
    ('f"{x} formatted"', ""),
    ('b"bytes"', ""),
    ('""""""', ""),
    ("# a comment first\n    'after the comment'", "after the comment"),
    ("x = 'not a docstring'", ""),
])
def test_doc_is_the_first_docstring_line(body: str, doc: str) -> None:
    assert one(f"def f():\n    {body}\n", "m.f").doc == doc


# -- refs ------------------------------------------------------------------------------------


def test_refs_cover_bases_decorators_annotations_calls_and_exceptions() -> None:
    source = (
        "@registry.register\n"
        "class Cart(base.Model, Generic[T], metaclass=Meta):\n"
        "    items: list[Item] = field()\n"
        "    @cached(ttl=Ttl.HOUR)\n"
        "    def total(self, tax: 'Tax', *, rate: Optional[rates.Rate] = None) -> Money:\n"
        "        try:\n"
        "            return compute(self)\n"
        "        except (KeyError, errors.PriceError) as exc:\n"
        "            raise CartError() from exc\n"
        "        except LookupError:\n"
        "            raise Missing\n"
    )
    assert one(source, "m.Cart").refs == (
        "Generic", "Item", "Meta", "Model", "field", "list", "register")
    assert one(source, "m.Cart.total").refs == (
        "CartError", "KeyError", "LookupError", "Missing", "Money", "Optional", "PriceError",
        "Rate", "Tax", "cached", "compute")


def test_refs_belong_to_the_innermost_definition() -> None:
    source = "def outer():\n    first()\n    def inner():\n        second()\n    third()\n"
    assert one(source, "m.outer").refs == ("first", "third")
    assert one(source, "m.outer.inner").refs == ("second",)


def test_refs_drop_keywords_and_keep_simple_names() -> None:
    source = "def f(x: None | True = None) -> 'a.b.C':\n    self.run()\n"
    assert one(source, "m.f").refs == ("C", "run")


# -- module variables ------------------------------------------------------------------------


def test_module_variables(sample_sources) -> None:
    symbols = symbols_of(sample_sources, "shop/__init__.py")
    variables = {n: s for n, s in symbols.items() if s.kind == VARIABLE}
    assert set(variables) == {"shop.__all__", "shop.VERSION", "shop.DEBUG", "shop.first",
                              "shop.second", "shop.alpha", "shop.beta", "shop.LEVEL"}
    assert variables["shop.LEVEL"].start_line == 23  # the first binding wins
    assert variables["shop.DEBUG"].refs == ("bool",)
    assert variables["shop.DEBUG"].signature == "DEBUG: bool = False"


def test_chained_targets_share_refs() -> None:
    source = "a = b = make()\nc: Annotated = 1\nd: Bare\n"
    assert one(source, "m.a").refs == one(source, "m.b").refs == ("make",)
    assert one(source, "m.d").signature == "d: Bare"


def test_variables_inside_functions_and_classes_are_not_module_variables() -> None:
    source = "class A:\n    x = 1\ndef f():\n    y = 2\n"
    names = {s.fq_name for s in extract_python("m.py", source)}
    assert names == {"m.A", "m.f"}


def test_modern_syntax_the_test_interpreter_cannot_parse(sample_sources) -> None:
    symbols = symbols_of(sample_sources, "shop/modern.py")
    assert symbols["shop.modern.Pair"].kind == VARIABLE
    assert symbols["shop.modern.Box.unwrap"].signature == (
        "def unwrap[U](self, fallback: U) -> T | U")
    assert symbols["shop.modern.first"].refs == ("Sequence", "T")


# -- modules, stubs, unicode -----------------------------------------------------------------


def test_stub_declares_the_same_names_as_its_module(sample_sources) -> None:
    module = set(symbols_of(sample_sources, "shop/stubbed.py"))
    stub = set(symbols_of(sample_sources, "shop/stubbed.pyi"))
    assert module == stub == {"shop.stubbed.Price", "shop.stubbed.Price.__init__",
                              "shop.stubbed.Price.add", "shop.stubbed.parse_price"}


def test_unicode_identifiers(sample_sources) -> None:
    symbols = symbols_of(sample_sources, "shop/unicode_names.py")
    assert symbols["shop.unicode_names.Größe.计算"].refs == ("float",)
    assert symbols["shop.unicode_names.π"].kind == VARIABLE
    assert symbols["shop.unicode_names.ñandú"].doc == "Emoji 😀 in a docstring."


# -- robustness ------------------------------------------------------------------------------


def test_syntax_errors_still_yield_what_parses(sample_sources) -> None:
    names = set(symbols_of(sample_sources, "shop/broken.py"))
    assert {"shop.broken.Survivor.fine", "shop.broken.after_the_break",
            "shop.broken.last_one"} <= names


@pytest.mark.parametrize("text", [
    "", "\n", "def", "class :", "def f(:\n", "@\n", "x =", "\x00\x01 def f(): pass",
    "\ud800 = 1\ndef \udfff(): pass\n", "\ufffd\ufffd", "if x:\n" * 3000 + "    y = 1\n",
    "(" * 5000, "def f():\n    '''unterminated\n", "class A(B:\n  def m(self): pass\n",
])
def test_never_raises_on_bad_input(text: str) -> None:
    for symbol in extract_python("bad.py", text):
        assert symbol.name and symbol.kind in (CLASS, FUNCTION, METHOD, VARIABLE)


def test_surrogates_do_not_hide_the_rest_of_the_file() -> None:
    names = [s.fq_name for s in extract_python("m.py", "s = '\udcff'\ndef after(): pass\n")]
    assert names == ["m.s", "m.after"]


def test_threads_each_get_a_parser() -> None:
    from concurrent.futures import ThreadPoolExecutor

    source = "class A:\n    def f(self): pass\n" * 200
    expected = extract_python("m.py", source)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: extract_python("m.py", source), range(16)))
    assert all(result == expected for result in results)
