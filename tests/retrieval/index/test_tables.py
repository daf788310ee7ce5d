"""The search tables inside an export: full build, and updates by document id."""

import shutil
import sqlite3

import pytest

from repoctx.contextpull import export_directory
from repoctx.retrieval.index.sql import SECTIONS
from repoctx.retrieval.index.tables import (
    TABLES,
    SectionRow,
    build_search_index,
    has_search_index,
    heading_words,
    path_words,
)
from tests.retrieval.search_repo import FILES, build_tables, write_repo

CONTEXTPULL_TABLES = ("meta", "documents", "sections", "sections_fts", "repoctx_sections")


@pytest.fixture
def export(tmp_path):
    root = tmp_path / "repo"
    write_repo(root)
    out = tmp_path / "export.sqlite"
    export_directory(root, out)
    return root, out


def _dump(conn, tables=CONTEXTPULL_TABLES):
    return {t: conn.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in tables}


def _symbols(conn):
    return sorted(r[0] for r in conn.execute("SELECT fq FROM repoctx_search_symbols"))


def _matches(conn, table, term):
    return sorted(r[0] for r in conn.execute(
        f"SELECT s.id FROM {table} t JOIN sections s ON s.rowid = t.rowid"
        f" WHERE {table} MATCH ?", (f'"{term}"',)))


def test_build_creates_every_table_and_leaves_contextpull_tables_alone(export):
    _, out = export
    conn = sqlite3.connect(out)
    before = _dump(conn)
    build_search_index(conn)
    conn.commit()
    assert has_search_index(conn)
    assert _dump(conn) == before
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert set(TABLES) <= names


def test_porter_table_splits_identifiers_and_stems(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    # "response" meets HTTPResponse, "status" meets status_code, "savepoints" stems.
    assert any(i.startswith("shop/http.py#") for i in _matches(conn, "repoctx_search_text",
                                                                "response"))
    assert any(i.startswith("shop/http.py#") for i in _matches(conn, "repoctx_search_text",
                                                                "status_code"))
    assert any(i.startswith("shop/savepoints.py#") for i in _matches(
        conn, "repoctx_search_text", "savepoints"))


def test_secondary_documents_go_to_the_aux_table(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    main = {i.split("#")[0] for i in _matches(conn, "repoctx_search_text", "cart")}
    aux = {i.split("#")[0] for i in _matches(conn, "repoctx_search_text_aux", "cart")}
    assert "shop/cart.py" in main and "tests/test_cart.py" in aux
    assert not main & aux


def test_trigram_table_holds_names_paths_and_headings_only(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    assert _matches(conn, "repoctx_search_names", "ppingCa")  # partial identifier
    assert not _matches(conn, "repoctx_search_names", "thirty days")  # body text is not there


def test_trigram_table_holds_a_path_in_its_documents_first_section_only(tmp_path):
    root = tmp_path / "repo"
    write_repo(root)
    body = "".join(f"def step_{i}(x):\n" + "".join(f"    x = x + {j}  # step {i}, line {j}\n"
                                                  for j in range(60)) + "    return x\n\n\n"
                   for i in range(12))
    (root / "shop" / "pipeline.py").write_text(body, encoding="utf-8")
    out = tmp_path / "export.sqlite"
    export_directory(root, out)
    conn = sqlite3.connect(out)
    build_search_index(conn)
    sections = [r[0] for r in conn.execute(
        "SELECT s.id FROM sections s JOIN documents d ON d.doc_id = s.doc_id"
        " WHERE d.path = 'shop/pipeline.py' ORDER BY s.ordinal")]
    assert len(sections) > 1
    hits = conn.execute(
        "SELECT s.id FROM repoctx_search_names n JOIN sections s ON s.rowid = n.rowid"
        " WHERE repoctx_search_names MATCH ?", ('path : "shop/pipeline"',)).fetchall()
    assert [h[0] for h in hits] == [sections[0]]


def test_symbols_are_found_with_kinds_and_lines(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    rows = {r[0]: r[1:] for r in conn.execute(
        "SELECT fq, kind, norm, start_line FROM repoctx_search_symbols")}
    assert rows["shop.cart.ShoppingCart.add_item"] == ("method", "additem", 12)
    assert rows["shop.cart.MAX_ITEMS"][0] == "variable"
    assert rows["shop.http.HTTPResponse"][0] == "class"
    parts = {r[0] for r in conn.execute(
        "SELECT part FROM repoctx_search_symbol_parts p JOIN repoctx_search_symbols y"
        " ON y.id = p.symbol_id WHERE y.fq = 'shop.cart.ShoppingCart.total_price'")}
    assert parts == {"total", "price"}


def test_vocabulary_counts_words(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    vocab = dict(conn.execute("SELECT term, n FROM repoctx_search_vocab"))
    assert vocab["refund"] == 1 and vocab["cart"] >= 2


def test_update_by_doc_ids_equals_a_full_rebuild(export, tmp_path):
    root, out = export
    build_tables(out)
    # Change one file, add one, remove one; re-export on top of the indexed file.
    (root / "shop/cart.py").write_text(FILES["shop/cart.py"].replace("total_price", "grand_sum"))
    (root / "shop/extra.py").write_text("def brand_new_helper():\n    return 1\n")
    (root / "shop/savepoints.py").unlink()
    patched = tmp_path / "patched.sqlite"
    shutil.copyfile(out, patched)
    with sqlite3.connect(patched) as before:
        (last_id,) = before.execute("SELECT max(id) FROM repoctx_search_symbols").fetchone()
    report = export_directory(root, patched, previous=patched, finalize=build_search_index)
    assert report.patched  # the previous file (with its search tables) was patched in place
    conn = sqlite3.connect(patched)
    assert has_search_index(conn)
    # Updated, not rebuilt: the changed file's rows were deleted with the values read back
    # from the previous export, and its new symbols numbered after the old ones.
    (new_id,) = conn.execute("SELECT id FROM repoctx_search_symbols"
                             " WHERE fq = 'shop.extra.brand_new_helper'").fetchone()
    assert new_id > last_id
    assert conn.execute("SELECT count(*) FROM repoctx_search_symbol_parts WHERE symbol_id"
                        " NOT IN (SELECT id FROM repoctx_search_symbols)").fetchone() == (0,)
    incremental = _index_state(conn)
    build_search_index(conn)
    assert incremental == _index_state(conn)
    assert "shop.extra.brand_new_helper" in _symbols(conn)
    assert "shop.cart.ShoppingCart.grand_sum" in _symbols(conn)
    assert "shop.cart.ShoppingCart.total_price" not in _symbols(conn)
    assert not any(s.startswith("shop.savepoints") for s in _symbols(conn))


def _postings(conn, table):
    """Every (term, rowid, column, offset) the FTS5 table indexes: its whole index."""
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS temp.{table}_v"
                 f" USING fts5vocab(main, {table}, 'instance')")
    rows = conn.execute(f"SELECT term, doc, col, offset FROM temp.{table}_v"
                        " ORDER BY 1, 2, 3, 4").fetchall()
    conn.execute(f"DROP TABLE temp.{table}_v")
    return rows


def _index_state(conn):
    text = [_postings(conn, table) for table in ("repoctx_search_text",
                                                 "repoctx_search_text_aux",
                                                 "repoctx_search_names")]
    sizes = [conn.execute(f"SELECT * FROM {table}_docsize ORDER BY 1").fetchall()
             for table in ("repoctx_search_text", "repoctx_search_text_aux",
                           "repoctx_search_names")]
    symbols = conn.execute("SELECT fq, kind, path, start_line, end_line, section_rowid FROM"
                           " repoctx_search_symbols ORDER BY fq").fetchall()
    parts = conn.execute("SELECT p.part, y.fq FROM repoctx_search_symbol_parts p JOIN"
                         " repoctx_search_symbols y ON y.id = p.symbol_id ORDER BY 1, 2").fetchall()
    rows = conn.execute("SELECT * FROM repoctx_search_rows ORDER BY 1").fetchall()
    docs = conn.execute("SELECT * FROM repoctx_search_docs ORDER BY 1").fetchall()
    return text, sizes, symbols, parts, rows, docs


def test_update_without_ids_finds_drifted_documents_itself(export):
    root, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    conn.commit()
    # Simulate a patch that rewrote a document: its sections get new ids and rowids.
    conn.execute("UPDATE documents SET sha256 = 'changed' WHERE path = 'docs/guide.md'")
    build_search_index(conn, set())
    assert conn.execute("SELECT sha256 FROM repoctx_search_docs WHERE path = 'docs/guide.md'"
                        ).fetchone() == ("changed",)


def test_update_on_an_export_without_tables_builds_them(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn, {1})
    assert has_search_index(conn)
    assert conn.execute("SELECT count(*) FROM repoctx_search_rows").fetchone()[0] == \
        conn.execute("SELECT count(*) FROM sections").fetchone()[0]


def test_a_failed_build_rolls_back(export, monkeypatch):
    _, out = export
    conn = sqlite3.connect(out)
    import repoctx.retrieval.index.tables as module

    def boom(*_args):
        raise RuntimeError("boom")

    monkeypatch.setattr(module, "_insert", boom)
    with pytest.raises(RuntimeError):
        build_search_index(conn)
    assert not has_search_index(conn)


def test_text_tables_are_contentless_and_still_rank(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    conn.commit()
    # No copy of the text: the columns read NULL, yet MATCH and bm25 answer by rowid.
    assert conn.execute("SELECT count(*) FROM repoctx_search_text WHERE body IS NOT NULL"
                        ).fetchone() == (0,)
    ranked = conn.execute("SELECT s.id FROM repoctx_search_text t JOIN sections s"
                          " ON s.rowid = t.rowid WHERE repoctx_search_text MATCH 'cart'"
                          " ORDER BY bm25(repoctx_search_text) LIMIT 1").fetchone()
    assert ranked[0].startswith("shop/cart.py#")
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert not {"repoctx_search_text_content", "repoctx_search_names_content"} & names


def test_a_row_whose_section_is_nowhere_rebuilds_everything(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    conn.commit()
    rebuilt = _index_state(conn)
    # The text changed under the index with no previous export to read the old one from.
    conn.execute("UPDATE sections SET text = 'renamed everything' WHERE id LIKE 'shop/cart.py#%'")
    conn.execute("UPDATE documents SET sha256 = 'changed' WHERE path = 'shop/cart.py'")
    build_search_index(conn, set())
    incremental = _index_state(conn)
    assert incremental != rebuilt
    build_search_index(conn)
    assert incremental == _index_state(conn)
    assert _matches(conn, "repoctx_search_text", "renamed")


def test_tables_of_an_older_format_are_rebuilt(export):
    _, out = export
    conn = sqlite3.connect(out)
    build_search_index(conn)
    conn.execute("ALTER TABLE repoctx_search_rows DROP COLUMN digest")
    assert not has_search_index(conn)
    build_search_index(conn, set())
    assert has_search_index(conn)


def test_path_and_heading_words():
    assert path_words("django/db/models/query_utils.py").split() == [
        "django", "db", "models", "query_utils", "query", "utils"]
    row = SectionRow(1, "a.py#0", "a.py", "code", "a.py > Cart > add", "", 1, 2, "Cart.add")
    assert heading_words(row) == "Cart > add"


def test_update_after_carrying_the_tables_into_a_new_export_equals_a_rebuild(export, tmp_path):
    root, out = export
    build_tables(out)
    (root / "shop/cart.py").write_text(FILES["shop/cart.py"].replace("total_price", "grand_sum"))
    (root / "shop/aaa.py").write_text("def brand_new_helper():\n    return 1\n")  # shifts ids
    fresh = tmp_path / "fresh.sqlite"
    export_directory(root, fresh)
    conn = sqlite3.connect(fresh)
    conn.execute("ATTACH ? AS old", (str(out),))
    for table in TABLES:  # what a copy-and-patch re-export carries along
        sql = conn.execute("SELECT sql FROM old.sqlite_master WHERE name = ?",
                           (table,)).fetchone()[0]
        conn.execute(sql)
        fts = table in ("repoctx_search_text", "repoctx_search_text_aux",
                        "repoctx_search_names")
        for copied in [f"{table}_{s}" for s in ("data", "idx", "docsize", "config")] \
                if fts else [table]:  # a contentless table's index is in its shadow tables
            conn.execute(f"DELETE FROM main.{copied}")
            conn.execute(f"INSERT INTO main.{copied} SELECT * FROM old.{copied}")
    for (sql,) in conn.execute("SELECT sql FROM old.sqlite_master WHERE type = 'index'"
                               " AND name LIKE 'repoctx_search_%'").fetchall():
        conn.execute(sql)
    conn.commit()
    conn.execute("DETACH old")
    changed = {r[0] for r in conn.execute(
        "SELECT doc_id FROM documents WHERE path IN ('shop/cart.py', 'shop/aaa.py')")}
    build_search_index(conn, changed)
    conn.commit()
    incremental = _index_state(conn)
    build_search_index(conn)
    assert incremental == _index_state(conn)
    assert "shop.aaa.brand_new_helper" in _symbols(conn)
    assert "shop.cart.ShoppingCart.total_price" not in _symbols(conn)


def _declared_cart(extra_line):
    """A ``Declared`` hook: shop/cart.py's extracted symbols plus one only the store knows."""
    from repoctx.reconcile import Declaration
    from repoctx.retrieval.index.section_symbols import extracted

    def declared(path, sha256):
        if path != "shop/cart.py":
            return None
        with sqlite3.connect(_declared_cart.export) as conn:
            spans = [SectionRow(*row).span() for row in conn.execute(
                SECTIONS + " WHERE d.path = ? ORDER BY s.ordinal", (path,))]
        found = dict(extracted(path, spans))
        found["shop.cart.only_in_store"] = Declaration("function", "()", "", extra_line,
                                                       extra_line, (), False)
        return found

    return declared


def test_a_patch_deletes_rows_built_from_store_declarations_without_a_rebuild(export, tmp_path):
    # The store's declarations of a changed file are gone by the time its rows are
    # deleted: the names a row was built from are read back from its symbol rows.
    root, out = export
    _declared_cart.export = out
    with sqlite3.connect(out) as conn:
        build_search_index(conn, None, _declared_cart(3))
        assert "shop.cart.only_in_store" in _symbols(conn)
        (last_id,) = conn.execute("SELECT max(id) FROM repoctx_search_symbols").fetchone()
    (root / "shop/cart.py").write_text(FILES["shop/cart.py"].replace("total_price", "grand_sum"))
    report = export_directory(root, out, previous=out, finalize=build_search_index)
    assert report.patched
    conn = sqlite3.connect(out)
    (new_id,) = conn.execute("SELECT min(id) FROM repoctx_search_symbols"
                             " WHERE path = 'shop/cart.py'").fetchone()
    assert new_id > last_id  # updated, not rebuilt
    assert "shop.cart.only_in_store" not in _symbols(conn)
    incremental = _index_state(conn)
    build_search_index(conn)
    assert incremental == _index_state(conn)


def test_a_full_build_over_workers_equals_one_in_process(export, monkeypatch):
    # The workers get each document's sections with the declarations looked up here.
    from repoctx.contextpull.write import pool
    from repoctx.retrieval.index import tables as search_index

    _, out = export
    _declared_cart.export = out
    conn = sqlite3.connect(out)
    build_search_index(conn, None, _declared_cart(5))
    in_process = _index_state(conn)
    monkeypatch.setattr(search_index, "MIN_DOCUMENTS", 1)
    monkeypatch.setattr(search_index, "DOCUMENT_CHUNK", 2)
    monkeypatch.setattr(pool, "default_workers", lambda: 2)
    build_search_index(conn, None, _declared_cart(5))
    assert _index_state(conn) == in_process
    (line,) = conn.execute("SELECT start_line FROM repoctx_search_symbols"
                           " WHERE fq = 'shop.cart.only_in_store'").fetchone()
    assert line == 5


def _function(i: int, extra: str = "") -> str:
    body = "\n".join(f"    value_{i}_{k} = helper_{k}(value)  # step {k} of function {i}"
                     for k in range(12))
    return f"def function_{i}(value):\n    \"\"\"Function number {i}.\"\"\"\n{extra}{body}\n" \
           f"    return value\n\n\n"


def _rows(conn):
    """Section id -> its row (rowid and digest) and the ids of the symbols placed in it
    (a row deleted and inserted again gets its symbols new ids)."""
    symbols: dict[int, list] = {}
    for rowid, symbol_id in conn.execute("SELECT section_rowid, id FROM"
                                         " repoctx_search_symbols ORDER BY id"):
        symbols.setdefault(rowid, []).append(symbol_id)
    return {sid: (rowid, digest, symbols.get(rowid, [])) for sid, rowid, digest in conn.execute(
        "SELECT s.id, m.rowid, m.digest FROM repoctx_search_rows m"
        " JOIN sections s ON s.rowid = m.rowid")}


@pytest.mark.parametrize("edit", ["middle", "shift", "append", "truncate"])
def test_an_edit_rewrites_the_rows_of_the_sections_it_touched_only(tmp_path, edit):
    """A patch keeps the rowids of a changed file's unchanged sections: their
    search rows stay as they are, the touched ones are replaced, and the tables equal a
    rebuild (a stale row left behind, or a symbol left at its old lines, fails this)."""
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    source = root / "pkg" / "long_module.py"
    functions = [_function(i) for i in range(14)]
    source.write_text("".join(functions))
    for i in range(3):  # so that one changed file is not most of the export (a rewrite)
        (root / "pkg" / f"other_{i}.py").write_text(f"def other_{i}():\n    return {i}\n")
    out = tmp_path / "export.sqlite"
    export_directory(root, out, finalize=build_search_index)
    line_of = "SELECT id, start_line FROM repoctx_search_symbols WHERE name = 'function_12'"
    with sqlite3.connect(out) as conn:
        before = _rows(conn)
        (last_id, last_line), = conn.execute(line_of).fetchall()
    assert len(before) >= 6  # several sections, or there is nothing to keep
    if edit == "middle":  # one function's words change
        functions[7] = functions[7].replace("helper_3(value)", "zebrafinch_3(value)")
    elif edit == "shift":  # one line more, as many characters: later sections keep their
        functions[1] = functions[1].replace(")  # step 0", ")\n # step 0")  # text, lines move
    elif edit == "append":
        functions.append(_function(99).replace("helper_", "zebrafinch_"))
    else:
        del functions[10:]
    source.write_text("".join(functions))
    report = export_directory(root, out, previous=out, finalize=build_search_index)
    assert report.patched
    conn = sqlite3.connect(out)
    after = _rows(conn)
    edited = {sid for sid in after if sid.startswith("pkg/long_module.py#")}
    kept = {sid for sid in edited if before.get(sid) == after[sid]}
    assert any(after[sid][2] for sid in kept)  # rows kept, with their symbols
    assert len(kept) < len(edited) or edit == "truncate"
    assert set(after) == {r[0] for r in conn.execute("SELECT id FROM sections")}
    if edit == "shift":  # kept where it was, at the line it has now
        assert conn.execute(line_of).fetchall() == [(last_id, last_line + 1)]
    found = _matches(conn, "repoctx_search_text", "zebrafinch")
    assert bool(found) == (edit in ("middle", "append"))
    assert not _matches(conn, "repoctx_search_text", "function_12") or edit != "truncate"
    incremental = _index_state(conn)
    build_search_index(conn)
    assert incremental == _index_state(conn)
