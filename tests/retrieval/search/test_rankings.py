"""The ranked lists: SQL text, symbol tiers, path matches and filters."""

import sqlite3

import pytest

from repoctx.retrieval.query import sanitise_query
from repoctx.retrieval.search.rankings import (
    TIER_EXACT,
    TIER_JOIN,
    TIER_NORM,
    TIER_PARTS,
    TIER_PREFIX,
    PathIndex,
    matches_filter,
    path_filter,
    path_word_set,
    symbol_ranking,
    text_ranking,
    text_sql,
    trigram_ranking,
)
from tests.retrieval.search_repo import indexed_export


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    export = indexed_export(tmp_path_factory.mktemp("rankings"))
    c = sqlite3.connect(export)
    yield c
    c.close()


def _ids(conn, rowids):
    marks = ", ".join("?" * len(rowids))
    found = dict(conn.execute(f"SELECT rowid, id FROM sections WHERE rowid IN ({marks})", rowids))
    return [found[r] for r in rowids]


def test_path_filter_sql_and_its_python_twin_agree():
    sql, params = path_filter(["shop", "docs/*.md"])
    assert sql == "((d.path = ? OR d.path GLOB ?) OR d.path GLOB ?)"
    assert params == ["shop", "shop/*", "docs/*.md"]
    assert path_filter(None) == ("1", [])
    assert matches_filter("shop/cart.py", ["shop"]) and matches_filter("docs/g.md", ["docs/*.md"])
    assert not matches_filter("shopping/x.py", ["shop"])


def test_text_sql_weights_and_joins_only_with_a_filter():
    assert "JOIN" not in text_sql("1") and "bm25(repoctx_search_text, 4.0" in text_sql("1")
    assert "JOIN documents d" in text_sql("(d.path GLOB ?)")


def test_text_ranking_meets_split_identifiers(conn):
    ranked = _ids(conn, text_ranking(conn, ["status"], ("1", []), 10))
    assert ranked and ranked[0].startswith("shop/http.py#")


def test_text_ranking_honours_the_path_filter(conn):
    filt = path_filter(["docs"])
    ranked = _ids(conn, text_ranking(conn, ["cart"], filt, 10))
    assert ranked and all(i.startswith("docs/") for i in ranked)


def test_trigram_ranking_finds_partial_identifiers(conn):
    ranked = _ids(conn, trigram_ranking(conn, ["ppingcar"], ("1", []), 10))
    assert ranked and ranked[0].startswith("shop/cart.py#")


def test_symbol_tiers_exact_join_then_word_then_prefix_then_parts(conn):
    by_join = symbol_ranking(conn, sanitise_query("add item"), ("1", []), 10)
    assert (by_join[0].fq, by_join[0].tier) == ("shop.cart.ShoppingCart.add_item", TIER_JOIN)
    exact = symbol_ranking(conn, sanitise_query("HTTPResponse"), ("1", []), 10)
    assert exact[0].fq == "shop.http.HTTPResponse" and exact[0].tier <= TIER_EXACT
    prefix = symbol_ranking(conn, sanitise_query("render_templ"), ("1", []), 10)
    assert prefix[0].fq == "shop.http.render_template_response"
    assert prefix[0].tier == TIER_PREFIX
    parts = symbol_ranking(conn, sanitise_query("price total"), ("1", []), 10)
    assert {m.tier for m in parts} == {TIER_PARTS}
    assert parts[0].fq == "shop.cart.ShoppingCart.total_price" and parts[0].covered == 2


def test_path_index_ranks_rarer_path_words_first():
    index = PathIndex(["shop/cart.py", "shop/http.py", "docs/guide.md", "shop/carts/x.py"])
    assert index.ranking(sanitise_query("carts"), None, 10)[:2] == ["shop/cart.py",
                                                                  "shop/carts/x.py"]
    assert index.ranking(sanitise_query("shop http"), None, 10)[0] == "shop/http.py"
    assert index.ranking(sanitise_query("shop"), ["docs"], 10) == []


def test_a_private_twin_ranks_below_the_name_asked_for(tmp_path):
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE repoctx_search_symbols(id INTEGER PRIMARY KEY, fq, name, norm,"
                 " kind, path, start_line, end_line, section_rowid)")
    conn.execute("CREATE TABLE repoctx_search_symbol_parts(part, symbol_id)")
    conn.executemany("INSERT INTO repoctx_search_symbols VALUES (?, ?, ?, ?, 'function',"
                     " 'm.py', 1, 2, ?)", [(1, "m._trigsimp", "_trigsimp", "trigsimp", 1),
                                           (2, "m.trigsimp", "trigsimp", "trigsimp", 2)])
    found = symbol_ranking(conn, sanitise_query("trigsimp"), ("1", []), 10)
    assert [(m.fq, m.tier) for m in found] == [("m.trigsimp", TIER_EXACT),
                                               ("m._trigsimp", TIER_NORM)]
    asked = symbol_ranking(conn, sanitise_query("_trigsimp"), ("1", []), 10)
    assert {m.fq: m.tier for m in asked}["m._trigsimp"] == TIER_EXACT


def test_definition_ranking_follows_the_names_and_their_qualifiers(conn):
    from repoctx.retrieval.search.rankings import definition_ranking

    found = definition_ranking(conn, ["ShoppingCart.total_price", "HTTPResponse"], ("1", []), 3)
    assert [m.fq for m in found] == ["shop.cart.ShoppingCart.total_price",
                                     "shop.http.HTTPResponse"]
    assert definition_ranking(conn, ["Other.total_price"], ("1", []), 3) == []
    kept = definition_ranking(conn, ["HTTPResponse"], path_filter(["tests"]), 3)
    assert kept == []


def test_mentioned_paths_resolve_by_suffix_and_modules_by_their_files():
    index = PathIndex(["pkg/sql/compiler.py", "pkg/db/__init__.py", "pkg/a/utils.py",
                       "pkg/b/utils.py", "pkg/c/utils.py", "pkg/d/utils.py"])
    frames = ["/venv/lib/site-packages/pkg/sql/compiler.py", "pkg/db/helpers/render",
              "pkg/sql/compiler/SQLCompiler/as_sql", "utils.py", "nowhere/else.py"]
    assert index.resolve(frames) == ["pkg/sql/compiler.py", "pkg/db/__init__.py"]
    assert index.resolve(["a/utils.py"]) == ["pkg/a/utils.py"]  # the longest suffix decides
    assert index.resolve(["utils.py"], most=4) == ["pkg/a/utils.py", "pkg/b/utils.py",
                                                   "pkg/c/utils.py", "pkg/d/utils.py"]


def test_a_paths_words_are_its_folders_and_its_stem():
    assert path_word_set("django/db/models/sql/compiler.py") == {
        "django", "db", "model", "sql", "compiler"}
    assert path_word_set("src/HTTPServer/read_me.tar.gz") >= {"http", "server", "read", "me"}
    assert path_word_set(".hidden") == {"hidden"} and path_word_set("x/y.") >= {"x", "y"}
