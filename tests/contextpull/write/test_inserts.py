import sqlite3

from repoctx.contextpull.schema import schema_statements
from repoctx.contextpull.sections.documents import Section
from repoctx.contextpull.write.encoded import EncodedDocument, encode
from repoctx.contextpull.write.inserts import delete_documents, insert_documents, renumber_documents
from repoctx.contextpull.write.records import DocumentRows


def rows(path: str, n: int) -> EncodedDocument:
    sections = tuple(Section(path, 1, "prose", f"text {i} of {path}") for i in range(n))
    return encode(DocumentRows(path, "0" * 64, 1, path, None, None, "markdown", "t", sections))


def test_insert_delete_renumber_keep_fts_rowids_aligned() -> None:
    conn = sqlite3.connect(":memory:", isolation_level=None)
    for statement in schema_statements():
        conn.execute(statement)
    assert insert_documents(conn, [(1, rows("a", 2)), (2, rows("b", 3)), (3, rows("c", 1))], 1) == 7
    delete_documents(conn, [2])
    renumber_documents(conn, [(3, 2)])
    assert conn.execute("SELECT doc_id, path FROM documents").fetchall() == [(1, "a"), (2, "c")]
    doc_ids = conn.execute("SELECT DISTINCT doc_id FROM sections ORDER BY 1").fetchall()
    assert doc_ids == [(1,), (2,)]
    pairs = conn.execute("SELECT s.id, f.id FROM sections s JOIN sections_fts f"
                         " ON f.rowid = s.rowid").fetchall()  # fmt: skip
    assert sorted(pairs) == [("a#0", "a#0"), ("a#1", "a#1"), ("c#0", "c#0")]
    assert conn.execute("SELECT count(*) FROM sections_fts").fetchone() == (3,)
    assert conn.execute("SELECT count(*) FROM repoctx_sections").fetchone() == (3,)
