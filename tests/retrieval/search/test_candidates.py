"""Gathering, fusing and reranking the candidates of one query."""

import pytest

from repoctx.retrieval.query import light_stem, sanitise_query
from repoctx.retrieval.search.candidates import (
    CONTENT,
    PATH,
    SYMBOL,
    file_candidates,
    gather,
    match_words,
    partial_words,
    rerank,
    rerank_words,
)
from repoctx.retrieval.search.fuzzy import Vocabulary
from repoctx.retrieval.search.state import forget_state, search_state
from tests.retrieval.search_repo import index_repo, indexed_export


@pytest.fixture(scope="module")
def state(tmp_path_factory):
    export = indexed_export(tmp_path_factory.mktemp("candidates"))
    yield search_state(export)
    forget_state(export)


def test_a_symbol_and_content_match_fuse_above_content_alone(state):
    ranked = rerank(state, gather(state, sanitise_query("add item"), None),
                    sanitise_query("add item"))
    top = ranked[0]
    assert top.path == "shop/cart.py" and {CONTENT, SYMBOL} <= set(top.sources)
    assert top.symbol is not None and top.symbol.fq == "shop.cart.ShoppingCart.add_item"
    assert [c.score for c in ranked] == sorted((c.score for c in ranked), reverse=True)


def test_tests_rank_below_the_code_they_test(state):
    def best(ranked, path):
        return max(c.score for c in ranked if c.path == path)

    plain = gather(state, sanitise_query("total price"), None)
    paths = [c.path for c in plain]
    assert paths.index("shop/cart.py") < paths.index("tests/test_cart.py")
    asked = gather(state, sanitise_query("total price tests"), None)
    assert (best(asked, "tests/test_cart.py") / best(asked, "shop/cart.py")
            > best(plain, "tests/test_cart.py") / best(plain, "shop/cart.py"))


def test_a_path_only_match_becomes_a_file_candidate(state):
    ranked = gather(state, sanitise_query("savepoints"), None)
    assert ranked[0].path == "shop/savepoints.py" and PATH in ranked[0].sources
    files = file_candidates(state, {"docs/guide.md": 1, "gone.py": 2})
    assert [(c.path, c.sources) for c in files] == [("docs/guide.md", {PATH: 1}),
                                                    ("gone.py", {PATH: 2})]
    assert files[0].section.section_id == "docs/guide.md#0" and files[1].section is None
    assert files[0].score > files[1].score


def test_the_path_filter_applies_to_every_list(state):
    ranked = gather(state, sanitise_query("cart"), ["docs"])
    assert ranked and {c.path for c in ranked} == {"docs/guide.md"}


def test_proximity_reorders_candidates(state):
    terms = sanitise_query("refund window")
    ranked = rerank(state, gather(state, terms, None), terms)
    assert ranked[0].path == "docs/guide.md" and ranked[0].rerank.pairs == 1
    assert ranked[0].positions  # kept for the snippet


def test_word_selection_helpers():
    vocab = Vocabulary({"cart": 50, "refund": 1})
    assert match_words(sanitise_query("cart refund"), vocab, 100) == ["refund"]  # cart: common
    assert match_words(sanitise_query("cart"), vocab, 100) == ["cart"]  # all common: kept
    assert partial_words(sanitise_query("useEff select_related refund"), vocab) == [
        "useeff", "select_related"]
    assert rerank_words(sanitise_query("select_related savepoints")) == [
        light_stem("select"), light_stem("related"), "savepoint"]


def test_files_with_several_matching_sections_rank_first():
    from repoctx.retrieval.search.candidates import SectionInfo, files_by_sections

    def info(rowid, path):
        return SectionInfo(rowid, f"{path}#{rowid}", path, path, "code", 1, 2, None, "code")

    infos = {1: info(1, "a.py"), 2: info(2, "b.py"), 3: info(3, "b.py"), 4: info(4, "c.py")}
    assert files_by_sections([[1, 2, 3], [4, 99]], infos) == {"b.py": 1, "a.py": 2, "c.py": 3}


def test_a_task_names_definitions_and_files_beyond_its_reduced_words(state):
    from repoctx.retrieval.search.candidates import (
        MENTIONED,
        NAMED,
        TaskHints,
        qualified_first,
    )

    terms = sanitise_query("refund window")
    plain = [c.path for c in gather(state, terms, None)]
    hints = TaskHints(("ShoppingCart.total_price",), ("/venv/shop/savepoints.py",))
    named = gather(state, terms, None, hints)
    defined = [c for c in named if NAMED in c.sources]
    assert [c.symbol.fq for c in defined] == ["shop.cart.ShoppingCart.total_price"]
    assert any(c.path == "shop/savepoints.py" and MENTIONED in c.sources for c in named)
    assert "shop/savepoints.py" not in plain and "shop/cart.py" not in plain[:1]
    first = qualified_first(named, ["ShoppingCart.total_price"])[0]
    assert first is defined[0]
    assert qualified_first(named, ["total_price"]) == named  # simple names keep their rank
    assert gather(state, terms, ["docs"], hints)[0].path == "docs/guide.md"
    by_stem = gather(state, terms, None, TaskHints(stems=("http", "weather")))
    assert any(c.path == "shop/http.py" and MENTIONED in c.sources for c in by_stem)


@pytest.fixture(scope="module")
def data_state(tmp_path_factory):
    base = tmp_path_factory.mktemp("data-documents")
    root = base / "repo"
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "payments.py").write_text(
        "def give_back(payment, amount):\n"
        '    """Refund an order: its money goes back to the payment method."""\n'
        "    return payment.credit(amount)\n")
    lock = "".join(f'  "refund-order-{i}": {{"version": "1.0.{i}", "refund": "order"}},\n'
                   for i in range(40))
    (root / "refunds-lock.json").write_text('{\n  "lockfileVersion": 3,\n' + lock + '  "x": 1\n}\n')
    export = base / "export.sqlite"
    index_repo(root, base / "store", export).close()
    yield search_state(export)
    forget_state(export)


def test_a_data_document_ranks_below_the_code_unless_the_query_names_it(data_state):
    # the lock file repeats the words forty times; without its prior it ranks first
    state = data_state

    def first(query):
        terms = sanitise_query(query)
        return rerank(state, gather(state, terms, None), terms)[0].path

    assert first("refund order") == "shop/payments.py"
    assert first("refund order in refunds-lock.json") == "refunds-lock.json"
