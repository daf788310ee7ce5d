"""table_bytes: the bytes of every table and index of an export, adding up to the file."""

import os

from repoctx.contextpull import export_directory
from repoctx.contextpull.table_bytes import table_bytes


def test_every_table_is_listed_and_the_sizes_add_up_to_the_file(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "guide.md").write_text("# Guide\n\n" + "Refunds take thirty days. " * 400)
    (root / "app.py").write_text("def pay(amount):\n    return amount\n")
    out = tmp_path / "export.sqlite"
    export_directory(root, out)
    rows = dict(table_bytes(out))
    for table in ("sections", "documents", "sections_fts_data", "sections_fts_content"):
        assert rows[table] > 0
    # The largest first, and together every page of the file (the header page included).
    sizes = [size for name, size in table_bytes(out) if not name.startswith("(")]
    assert sizes == sorted(sizes, reverse=True)
    assert sum(rows.values()) == os.path.getsize(out)
    assert rows["(pointer maps)"] > 0  # an export is written with auto_vacuum = INCREMENTAL
    # Bigger text, bigger section tables.
    assert rows["sections"] >= 10_000
