from pathlib import Path

from repoctx.contextpull import SourceDocument, write_export
from repoctx.contextpull.write.previous import PreviousExport
from repoctx.contextpull.write.records import sha256_hex

DOC = SourceDocument("a.md", b"# A\n\nBody text long enough to be a real section.", tokens=9)


def test_reusable_only_when_sha_matches(tmp_path: Path) -> None:
    write_export(tmp_path / "s.db", [DOC], corpus_root="r")
    with PreviousExport(tmp_path / "s.db", 2000) as previous:
        rows = previous.reusable("a.md", sha256_hex(DOC.data))
        assert rows is not None and rows.reused and rows.title == "A"
        assert rows.sections[0].start_line == 1 and rows.tokens == 9
        assert previous.reusable("a.md", "0" * 64) is None
        assert previous.reusable("b.md", sha256_hex(DOC.data)) is None


def test_other_section_size_or_bad_file_is_not_used(tmp_path: Path) -> None:
    write_export(tmp_path / "s.db", [DOC], corpus_root="r")
    with PreviousExport(tmp_path / "s.db", 1000) as previous:
        assert previous.reusable("a.md", sha256_hex(DOC.data)) is None
    (tmp_path / "junk.db").write_bytes(b"junk" * 100)
    with PreviousExport(tmp_path / "junk.db", 2000) as previous:
        assert previous.reusable("a.md", sha256_hex(DOC.data)) is None
    with PreviousExport(None, 2000) as previous:
        assert previous.reusable("a.md", sha256_hex(DOC.data)) is None


def test_index_counts_are_lent_and_a_bad_entry_is_ignored(tmp_path: Path) -> None:
    import sqlite3

    write_export(tmp_path / "s.db", [DOC], corpus_root="r")
    with PreviousExport(tmp_path / "s.db", 2000) as previous:
        assert previous.patchable and previous.index_counts
        assert all(len(key) == 64 and count > 0 for key, count in previous.index_counts.items())
    conn = sqlite3.connect(tmp_path / "s.db")
    conn.execute("UPDATE repoctx_meta SET value = '[1, 2]' WHERE key = 'index_counts'")
    conn.commit()
    conn.close()
    with PreviousExport(tmp_path / "s.db", 2000) as previous:
        assert previous.patchable and previous.index_counts == {}
