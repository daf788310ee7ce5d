"""``repocontext_search`` end to end on a small indexed repository."""

import os
import sqlite3

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval.search.hits import KINDS, MAX_REASONS, search
from repoctx.retrieval.search.state import forget_state, search_state
from tests.retrieval.search_repo import index_repo, write_repo


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    base = tmp_path_factory.mktemp("search")
    write_repo(base / "repo")
    workspace = index_repo(base / "repo", base / "store", base / "export.sqlite")
    yield workspace
    forget_state(workspace.export)
    workspace.close()


def test_hits_have_the_pinned_shape(ws):
    result = search(ws, "add item to the cart")
    assert result["mode"] == "keyword" and result["retrievalPath"] == "keyword.no_embedder"
    hit = result["hits"][0]
    assert set(hit) >= {"score", "key", "kind", "path", "snippet", "reasons", "fresh"}
    assert hit["kind"] == "symbol" and hit["symbol"] == "shop.cart.ShoppingCart.add_item"
    assert hit["key"] == "repo/shop/symbol/shop.cart.ShoppingCart.add_item"
    assert hit["lines"] == [12, 14] and hit["fresh"] is True
    assert "symbol:shop.cart.ShoppingCart.add_item" in hit["reasons"]
    assert all(len(h["reasons"]) <= MAX_REASONS for h in result["hits"])


def test_split_identifiers_are_found_by_their_words(ws):
    hit = search(ws, "http response status")["hits"][0]
    assert hit["symbol"] == "shop.http.HTTPResponse"


def test_sections_of_documents_are_section_hits_with_snippets_around_the_match(ws):
    hit = search(ws, "refund window")["hits"][0]
    assert hit["kind"] == "section" and hit["key"] == "docs/guide.md#0"
    assert "refund window" in hit["snippet"] and "content-match" in hit["reasons"]


def test_kinds_filter_turns_hits_into_files_or_keeps_symbols_only(ws):
    files = search(ws, "cart total price", kinds=["file"])["hits"]
    assert files and all(h["kind"] == "file" for h in files)
    assert files[0]["key"] == "repo/shop/file/shop/cart.py"
    assert len({h["path"] for h in files}) == len(files)
    symbols = search(ws, "cart total price", kinds=["symbol"])["hits"]
    assert symbols and all(h["kind"] == "symbol" and "symbol" in h for h in symbols)
    sections = search(ws, "cart total price", kinds=["section"])["hits"]
    assert all(h["kind"] == "section" and "#" in h["key"] for h in sections)


def test_paths_filter_keeps_matching_files_only(ws):
    hits = search(ws, "cart", paths=["docs/*.md"])["hits"]
    assert hits and {h["path"] for h in hits} == {"docs/guide.md"}
    assert search(ws, "cart", paths=["nowhere"])["hits"] == []


def test_k_is_clamped(ws):
    assert len(search(ws, "cart", k=1)["hits"]) == 1
    assert len(search(ws, "cart", k=0)["hits"]) == 1
    assert len(search(ws, "cart", k=10_000)["hits"]) <= 100


def test_typos_are_corrected_and_reported(ws):
    result = search(ws, "totl prise")
    assert result["corrected"] == {"query": "total price",
                                   "words": {"totl": "total", "prise": "price"}}
    assert result["hits"][0]["symbol"] == "shop.cart.ShoppingCart.total_price"
    assert "fuzzy:totl->total" in result["hits"][0]["reasons"]


def test_a_query_that_matches_needs_no_correction(ws, monkeypatch):
    assert "corrected" not in search(ws, "total price")
    state = search_state(ws.export)

    def unread():  # every part of the identifier is an indexed word: nothing to correct
        raise AssertionError("the symbol names' parts were read")

    monkeypatch.setattr(state, "name_parts", unread)
    assert "corrected" not in search(ws, "total_price ShoppingCart")


def test_partial_identifiers_match_by_trigram(ws):
    hit = search(ws, "ShoppingCa")["hits"][0]
    assert hit["path"] == "shop/cart.py" and "partial-name-match" in hit["reasons"]


@pytest.mark.parametrize("query", ['"', "NEAR(", "*", "cart*", 'a"b', "(x OR y", "col:umn",
                                   "NOT AND OR", "^cart", "'; DROP TABLE documents; --"])
def test_hostile_queries_never_raise_sqlite_errors(ws, query):
    result = search(ws, query)
    assert isinstance(result["hits"], list)


def test_overlong_queries_are_tool_errors(ws):
    with pytest.raises(ToolError, match="query: at most 100,000 characters"):
        search(ws, "x" * 100_001)
    with pytest.raises(ToolError, match="queries\\[1\\]: at most 100,000 characters"):
        search(ws, queries=["cart", "x" * 100_001])


PASTED_ISSUE = ("Cart goes wrong after a while\n<!-- Please describe the bug; this comment is "
                "hidden. -->\n" + "Some unrelated words about the weather today. " * 1400
                + '\nTraceback (most recent call last):\n  File "/venv/shop/cart.py", line 14, '
                  "in add_item\nKeyError: 'sku'\n")


def test_a_pasted_64k_issue_is_reduced_not_refused(ws):
    from repoctx.tools.registry import call

    assert len(PASTED_ISSUE) > 64_000
    hits = call(ws, "repocontext_search", {"query": PASTED_ISSUE})["hits"]
    assert hits[0]["path"] == "shop/cart.py"
    answer = call(ws, "repocontext_search", {"queries": [PASTED_ISSUE, "http response"]})
    assert answer["results"][0]["hits"][0]["path"] == "shop/cart.py"
    assert len(answer["results"][0]["query"].split()) <= 32


def test_several_queries_in_one_call(ws):
    result = search(ws, queries=["refund window", "HTTPResponse"], k=2)
    assert [r["query"] for r in result["results"]] == ["refund window", "HTTPResponse"]
    assert result["results"][1]["hits"][0]["symbol"] == "shop.http.HTTPResponse"
    assert result["mode"] == "keyword"


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"query": "x", "queries": ["y"]}, "query: give exactly one"),
    ({}, "query: give exactly one"),
    ({"query": "x", "k": "10"}, "k: must be an integer from 1 to 100"),
    ({"query": "x", "k": True}, "k: must be an integer"),
    ({"query": "x", "kinds": ["notes"]}, "kinds: unknown 'notes'; valid values are "
                                         + ", ".join(KINDS)),
    ({"query": "x", "kinds": "file"}, "kinds: must be a list of strings"),
    ({"query": "x", "kinds": []}, "kinds: must hold 1 to 4"),
    ({"query": "x", "paths": [""]}, "paths: must hold"),
    ({"query": "x", "refresh": "yes"}, "refresh: must be true or false"),
    ({"queries": ["a"] * 11}, "queries: must hold 1 to 10"),
    ({"queries": ["ok", 3]}, "queries: must hold"),
])
def test_bad_arguments_name_the_argument(ws, kwargs, message):
    with pytest.raises(ToolError, match=message.replace("(", r"\(")):
        search(ws, **kwargs)


def test_an_export_without_search_tables_falls_back_to_contextpull(ws, tmp_path):
    plain = tmp_path / "plain.sqlite"
    src = sqlite3.connect(ws.export)
    dst = sqlite3.connect(plain)
    src.backup(dst)
    for table in ("repoctx_search_text", "repoctx_search_names", "repoctx_search_vocab"):
        dst.execute(f"DROP TABLE {table}")
    dst.commit()
    src.close()
    dst.close()
    other = type(ws)(ws.store, ws.root, plain)
    result = search(other, "refund window")
    assert result["retrievalPath"] == "keyword.contextpull"
    assert result["hits"][0]["path"] == "docs/guide.md"
    forget_state(plain)


def test_freshness_and_refresh(tmp_path):
    write_repo(tmp_path / "repo")
    workspace = index_repo(tmp_path / "repo", tmp_path / "store", tmp_path / "export.sqlite")
    try:
        target = tmp_path / "repo" / "shop" / "savepoints.py"
        assert search(workspace, "savepoint")["hits"][0]["fresh"] is True
        target.write_text(target.read_text().replace("savepoint()", "savepoint()  # rollback"
                                                     "_marker_word"))
        os.utime(target, ns=(1, os.stat(target).st_mtime_ns + 5_000_000))
        stale = search(workspace, "savepoint")
        assert stale["hits"][0]["fresh"] is False and "refreshed" not in stale
        refreshed = search(workspace, "savepoint", refresh=True)  # touches the stale file
        assert refreshed["refreshed"] == ["shop/savepoints.py"]
        hit = refreshed["hits"][0]
        assert hit["path"] == "shop/savepoints.py" and hit["fresh"] is True
        assert "rollback_marker_word" in hit["snippet"]
        found = search(workspace, "rollback marker word")["hits"]  # the index saw the edit
        assert found[0]["path"] == "shop/savepoints.py" and "refreshed" not in found
    finally:
        forget_state(workspace.export)
        workspace.close()


def test_sqlite_failures_surface_as_tool_errors(ws, monkeypatch):
    import repoctx.retrieval.search.candidates as candidates

    def broken(*_args, **_kwargs):
        raise sqlite3.OperationalError("database disk image is malformed")

    monkeypatch.setattr(candidates, "text_ranking", broken)
    with pytest.raises(ToolError, match="search: searching failed"):
        search(ws, "cart")


def test_snippets_are_bounded(ws):
    for hit in search(ws, "cart price items", k=20)["hits"]:
        assert len(hit["snippet"]) <= 250


def test_brief_hits_rank_the_same_without_snippets_or_freshness(ws):
    full = search(ws, "cart price items", k=20)["hits"]
    brief = search(ws, "cart price items", k=20, brief=True)["hits"]
    assert brief == [{k: v for k, v in h.items() if k not in ("snippet", "fresh")} for h in full]


def test_memory_entries_are_found_and_fused_with_code(ws):
    from repoctx.memory import forget, remember

    made = remember(ws.store, "decisions", "cart-rounding", kind="decision",
                    title="Cart totals round half even",
                    body="We round shopping cart totals half-even to match the ledger.")
    try:
        hits = search(ws, "cart totals rounding")["hits"]
        notes = [h for h in hits if h["kind"] == "memory"]
        assert notes and notes[0]["key"] == made["key"] and notes[0]["fresh"] is True
        assert any(h["kind"] != "memory" for h in hits)  # code still ranks beside it
        only = search(ws, "ledger", kinds=["memory"])["hits"]
        assert [h["key"] for h in only] == [made["key"]]
        assert all(h["kind"] != "memory" for h in search(ws, "cart", paths=["shop"])["hits"])
    finally:
        forget(ws.store, made["key"])


def test_with_an_embedder_semantic_hits_are_fused_and_the_path_says_so(ws, monkeypatch):
    from repoctx import vectors
    from tests.vectors.hashed_embedder import HashedBagTestEmbedder

    embedder = HashedBagTestEmbedder()
    vectors.backfill(ws.store, embedder)
    real = vectors.semantic_hits
    monkeypatch.setattr(vectors, "semantic_hits",
                        lambda w, q, k: real(w, q, k, embedder=embedder))
    result = search(ws, "shopping cart item")
    assert result["mode"] == "hybrid"
    assert result["retrievalPath"] in ("semantic.exact", "semantic.approximate")
    assert any("semantic" in h["reasons"] for h in result["hits"])
    keys = [h["key"] for h in result["hits"]]
    assert len(keys) == len(set(keys))  # a source found both ways appears once
    monkeypatch.undo()
    assert search(ws, "shopping cart item")["retrievalPath"] == "keyword.no_embedder"


def test_semantic_neighbours_never_displace_strong_lexical_hits(ws, monkeypatch):
    from repoctx import vectors
    from tests.vectors.hashed_embedder import HashedBagTestEmbedder

    queries = ["add_item", "ShoppingCart", "HTTPResponse", "ShoppingCart add_item"]
    keyword = {q: search(ws, q, k=10)["hits"] for q in queries}
    embedder = HashedBagTestEmbedder()
    vectors.backfill(ws.store, embedder)
    real = vectors.semantic_hits
    monkeypatch.setattr(vectors, "semantic_hits",
                        lambda w, q, k: real(w, q, k, embedder=embedder))
    for query in queries:
        hybrid = search(ws, query, k=10)
        assert hybrid["mode"] == "hybrid"
        strong = []
        for hit in keyword[query]:  # the leading hits whose symbol the query names
            if not any(r.startswith("symbol:") for r in hit["reasons"]):
                break
            strong.append(hit["key"])
        got = [h["key"] for h in hybrid["hits"]]
        assert strong and got[:len(strong)] == strong, query


LONG_QUERIES = {
    "repeated": " ".join(["shopping cart add item total price"] * 5),  # 30 words
    # A pasted issue, reduced to a query of at most MAX_QUERY_TERMS terms: "long" is
    # decided on the text as sent, not on the reduced query.
    "pasted": ("The discount guide says coupons apply before taxes, but when I add an item "
               "to the shopping cart and render the template response, the total price "
               "ignores the discount and the refund window, and nested atomic blocks create "
               "a savepoint twice. Steps: add item, total price, check out, render response."),
}


@pytest.mark.parametrize("name", LONG_QUERIES)
def test_a_long_query_keeps_the_keyword_order_and_adds_neighbours_after(ws, monkeypatch, name):
    from repoctx import vectors
    from repoctx.retrieval.query import MAX_QUERY_TERMS
    from repoctx.retrieval.tuning import TUNING
    from tests.vectors.hashed_embedder import HashedBagTestEmbedder

    query = LONG_QUERIES[name]
    long_words = TUNING.hits.long_query_words
    assert len(query.split()) > (MAX_QUERY_TERMS if name == "pasted" else long_words)
    keyword = [h["key"] for h in search(ws, query, k=50)["hits"]]
    embedder = HashedBagTestEmbedder()
    vectors.backfill(ws.store, embedder)
    real = vectors.semantic_hits
    monkeypatch.setattr(vectors, "semantic_hits",
                        lambda w, q, k: real(w, q, k, embedder=embedder))
    hybrid = search(ws, query, k=50)
    assert hybrid["mode"] == "hybrid"
    got = [h["key"] for h in hybrid["hits"]]
    assert got[:len(keyword)] == keyword and len(got) >= len(keyword)


QUALIFIED_ISSUE = ("Totals are wrong\n" + "The weather was mild and the report is long. " * 30
                   + "\nCalling `ShoppingCart.total_price` after a refund gives the old sum.\n"
                   + 'Traceback (most recent call last):\n  File "/srv/app/shop/savepoints.py",'
                     " line 5, in create_savepoint\nRuntimeError: nested\n")


def test_a_pasted_issue_leads_with_the_definition_it_qualifies_and_the_files_it_names(ws):
    hits = search(ws, QUALIFIED_ISSUE, k=10)["hits"]
    assert hits[0]["symbol"] == "shop.cart.ShoppingCart.total_price"
    assert "task-names-definition" in hits[0]["reasons"]
    named = [h for h in hits if h["path"] == "shop/savepoints.py"]
    assert named and "task-names-file" in named[0]["reasons"]
    typed = search(ws, "total price", k=10)["hits"]  # a short query as typed: no task names
    assert not any("task-names-definition" in h["reasons"] for h in typed)
