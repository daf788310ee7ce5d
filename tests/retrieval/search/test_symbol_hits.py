"""Symbol hits are exact: the definition's lines, keys the store
holds that round-trip through outline and related, nothing from docstrings, exact names
first, identifier typos corrected by parts and said so."""

import sqlite3

from repoctx.retrieval.impact.outline import outline
from repoctx.retrieval.impact.related import related
from repoctx.retrieval.search import search
from tests.retrieval.symbol_repo import BP, span


def _symbols(ws, query, k=10):
    return search(ws, query, k=k, kinds=["symbol"])["hits"]


def test_a_split_method_has_its_definitions_lines_not_a_sections(pkg_ws):
    hit = _symbols(pkg_ws, "Blueprint.register")[0]
    assert hit["symbol"] == "pkg.bp.Blueprint.register"
    assert hit["lines"] == list(span(BP, "Blueprint.register"))  # 10-83, over two sections


def test_an_overload_resolves_to_its_implementation(pkg_ws):
    hit = _symbols(pkg_ws, "convert")[0]
    assert hit["symbol"] == "pkg.bp.convert"
    assert hit["lines"] == list(span(BP, "convert"))  # the last def, not the first stub


def test_exact_names_rank_before_private_and_longer_twins(pkg_ws):
    names = [h["symbol"] for h in _symbols(pkg_ws, "convert")]
    assert names[:3] == ["pkg.bp.convert", "pkg.bp._convert", "pkg.bp.convert_old"]
    names = [h["symbol"] for h in _symbols(pkg_ws, "register")]
    assert names[0] == "pkg.bp.Blueprint.register"


def test_every_symbol_hit_is_a_stored_key_that_round_trips(pkg_ws):
    for query in ("register", "Blueprint", "convert", "Registry add", "build"):
        for hit in _symbols(pkg_ws, query):
            assert pkg_ws.get(hit["key"]) is not None, hit["key"]
            listed = {s["fqName"]: [s["startLine"], s["endLine"]]
                      for s in outline(pkg_ws, hit["path"])["symbols"]}
            assert listed[hit["symbol"]] == hit["lines"]
            assert related(pkg_ws, symbol=hit["key"])["symbol"] == hit["symbol"]
            assert related(pkg_ws, symbol=hit["symbol"])["path"] == hit["path"]


def test_no_definitions_from_docstrings_or_glued_heads(pkg_ws):
    with sqlite3.connect(pkg_ws.export) as conn:
        indexed = {row[0] for row in conn.execute("SELECT fq FROM repoctx_search_symbols")}
    assert "pkg.bp.Registry.Plugin" not in indexed  # a class inside a docstring example
    assert "pkg.bp.Blueprint.Blueprint" not in indexed  # a head glued onto __init__
    stored = {fq for path in ("pkg/bp.py", "pkg/sub/mod.py")
              for fq in pkg_ws.node(path).symbols}
    assert indexed >= stored
    assert all(pkg_ws.get(pkg_ws.store.key("symbol", fq)) is not None for fq in indexed)
    assert not [h for h in _symbols(pkg_ws, "Plugin") if "Plugin" in h["symbol"]]


def test_identifier_typos_are_corrected_by_parts_and_named(pkg_ws):
    got = search(pkg_ws, "regster_bluprint", kinds=["symbol"])
    assert got["hits"][0]["symbol"] == "pkg.bp.Blueprint.register_blueprint"
    assert "fuzzy:regster_bluprint->register_blueprint" in got["hits"][0]["reasons"]
    assert got["corrected"]["words"] == {"regster_bluprint": "register_blueprint"}
    camel = search(pkg_ws, "regsterBluprint", kinds=["symbol"])
    assert camel["corrected"]["words"] == {"regsterBluprint": "registerBlueprint"}
    assert camel["hits"][0]["symbol"] == "pkg.bp.Blueprint.register_blueprint"
