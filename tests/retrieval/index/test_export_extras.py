"""retrieval/index/export_extras: the search tables, and embeddings that never fail the export."""

import pickle
import sqlite3

import pytest

from repoctx import open_store, vectors
from repoctx.errors import EmbedderError
from repoctx.retrieval import export_extras, has_search_index
from tests.vectors.hashed_embedder import HashedBagTestEmbedder


def test_the_export_carries_the_search_tables(shop):
    with sqlite3.connect(shop.export) as conn:
        assert has_search_index(conn)
        assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0  # none


def test_an_embedder_fills_the_embeddings(shop, tmp_path, monkeypatch):
    monkeypatch.setattr(vectors, "choose", lambda store: HashedBagTestEmbedder())
    copy = tmp_path / "copy.sqlite"
    with sqlite3.connect(shop.export) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    with sqlite3.connect(copy) as conn:
        export_extras(shop.store)(conn, None)
        assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] > 0


def test_an_embedder_failure_is_a_warning(shop, tmp_path, monkeypatch):
    def broken(conn, embedder):
        raise EmbedderError("model missing")

    monkeypatch.setattr(vectors, "fill_embeddings", broken)
    warnings: list[str] = []
    conn = sqlite3.connect(":memory:")
    with sqlite3.connect(shop.export) as src:
        src.backup(conn)
    with open_store(tmp_path, repo_id="x") as store:  # the hook reads symbols from it
        export_extras(store, warnings)(conn, None)
    assert warnings == ["embeddings not filled: model missing"]
    assert has_search_index(conn)


def test_a_reader_following_the_contract_literally_reads_the_export(shop):
    # Seed 000's reader, literally: plain MATCH on sections_fts, bm25 with its column
    # weights, snippet() and highlight() of the text column, joined to sections by id.
    # The search tables beside it are contentless; sections_fts is the contract's table.
    with sqlite3.connect(f"file:{shop.export}?mode=ro", uri=True) as conn:
        (declared,) = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'sections_fts'").fetchone()
        assert "content" not in declared.lower()  # a normal FTS5 table, as in DESIGN §5
        rows = conn.execute(
            "SELECT f.id, s.doc_id, -round(bm25(sections_fts, 0.0, 2.0, 1.0), 2),"
            " snippet(sections_fts, 2, '**', '**', '…', 20),"
            " highlight(sections_fts, 2, '[', ']')"
            " FROM sections_fts f JOIN sections s ON s.id = f.id"
            " WHERE sections_fts MATCH ? ORDER BY bm25(sections_fts, 0.0, 2.0, 1.0), f.id"
            " LIMIT 5", ('"discounts"',)).fetchall()
    assert rows and rows[0][0] == "README.md#0"
    _, _, score, snip, marked = rows[0]
    assert score > 0 and "**discounts**" in snip and "[discounts]" in marked


def test_stored_declarations_pickle_as_bytes_and_equal_the_stores(shop):
    # A full search build sends each document's declarations to a worker: the lookup
    # reads the symbol records undecoded, the worker decodes them to the same mapping.
    from repoctx.reconcile.nodes import file_node, symbol_record
    from repoctx.retrieval.index.export_extras import StoredDeclarations, stored_declarations

    store = shop.store
    with sqlite3.connect(shop.export) as conn:
        (sha,) = conn.execute("SELECT sha256 FROM documents WHERE path = 'shop/cart.py'"
                              ).fetchone()
    got = stored_declarations(store)("shop/cart.py", sha)
    assert isinstance(got, StoredDeclarations)
    node = file_node.file_node("shop/cart.py", store.get(store.key("file", "shop/cart.py")))
    expected = {fq: symbol_record.declaration_at(store.get(store.key("symbol", fq)),
                                                 "shop/cart.py") for fq in node.symbols}
    assert expected and dict(got) == expected
    sent = pickle.loads(pickle.dumps(StoredDeclarations(got.path, got.now_ms, got.stored)))
    assert dict(sent) == expected
    assert stored_declarations(store)("shop/cart.py", "0" * 64) is None  # other bytes


def _search_rows(path):
    """Every row of every search table, FTS5 shadow tables included, as stored."""
    from repoctx.retrieval.index.tables import FTS_TABLES, TABLES

    shadows = [f"{t}_{s}" for t in FTS_TABLES for s in ("data", "idx", "docsize", "config")]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return {table: conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()
                for table in (*TABLES[3:], *shadows)}


@pytest.mark.parametrize("workers", [0, 2])
def test_rows_built_in_the_export_pass_equal_a_build_from_the_finished_file(
        tmp_path, monkeypatch, workers):
    # The full export computes the search values in its sectioning workers (or in
    # process) and inserts them with the sections; a build from the finished file (the
    # sections read back, the store's declarations looked up) must give the same bytes.
    # One file changed since the index (its symbols extracted, not the store's), tests
    # (the _aux table), Markdown, JavaScript, and an empty file are in the tree.
    from repoctx.contextpull import export_store
    from repoctx.contextpull.write import pool
    from repoctx.reconcile import reconcile_pass
    from repoctx.retrieval.index.export_extras import ExportExtras
    from tests.retrieval.search_repo import write_repo

    root = tmp_path / "repo"
    write_repo(root)
    (root / "web").mkdir()
    (root / "web" / "menu.js").write_text(
        "export function openMenu(el) {\n  return el.open();\n}\n\n"
        "export class Menu {\n  close() { return 1; }\n}\n")
    (root / "shop" / "__init__.py").write_text("")
    monkeypatch.setattr(pool, "POOL_MIN_DOCUMENTS", 1 if workers else 10**6)
    monkeypatch.setattr(pool, "CHUNK_DOCUMENTS", 2)
    monkeypatch.setattr(pool, "default_workers", lambda: workers)
    with open_store(root, repo_id="shop", store_dir=tmp_path / "store") as store:
        reconcile_pass(store, root)
        cart = root / "shop" / "cart.py"
        cart.write_text(cart.read_text() + "\n\ndef added_since():\n    return 2\n")
        in_pass, after = tmp_path / "in-pass.sqlite", tmp_path / "after.sqlite"
        export_store(store, root, in_pass, finalize=export_extras(store))

        class AfterTheExport(ExportExtras):
            section_rows = None  # the build from the finished file, in a second pass

        export_store(store, root, after, finalize=AfterTheExport(store))
    built, expected = _search_rows(in_pass), _search_rows(after)
    assert expected["repoctx_search_symbols"] and expected["repoctx_search_vocab"]
    assert {r[1] for r in expected["repoctx_search_symbols"]} >= {
        "shop.cart.added_since", "shop.cart.ShoppingCart.add_item"}
    assert built == expected


def test_a_killed_full_export_leaves_the_previous_export_whole(tmp_path):
    # The search rows are written in the export's own pass, into the temporary file: a
    # `repoctx index` killed in it leaves the previous export as it was, search tables
    # included, and the next index writes the new one.
    import json
    import subprocess
    import sys

    from tests.kill import kill_while_exporting

    root, store_dir = tmp_path / "repo", tmp_path / "store"
    root.mkdir()
    text = "lorem ipsum dolor sit amet, consectetur adipiscing elit. " * 12

    def write(version: str) -> None:
        for i in range(400):
            (root / f"d{i}.md").write_text(f"# Doc {i} {version}\n\n{text}\n\n## Part\n\n{text}\n")

    index = [sys.executable, "-m", "repoctx", "index", str(root), "--store", str(store_dir),
             "--json"]
    write("old")
    first = subprocess.run(index, capture_output=True, text=True, timeout=300)
    assert first.returncode == 0, first.stderr
    out = store_dir / "contextpull.sqlite"

    def state() -> tuple:
        with sqlite3.connect(f"file:{out}?mode=ro", uri=True) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
            assert has_search_index(conn)
            return (conn.execute("SELECT path, sha256 FROM documents ORDER BY 1").fetchall(),
                    conn.execute("SELECT * FROM repoctx_search_rows ORDER BY 1").fetchall())

    before = state()
    write("new")  # every document changes: a full rewrite, not a patch
    kill_while_exporting(index, out)
    assert state() == before
    again = subprocess.run(index, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["export"]["documents"] == 400
    documents, rows = state()
    assert documents != before[0] and len(rows) == len(before[1])
