"""After a sync the ContextPull export is regenerated (when the store has one)."""

from __future__ import annotations

import shutil

from repoctx.contextpull import export_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.sync import refresh_export, refresher
from repoctx.sync.refresh import export_path

from .helpers import exchange, new_store


def test_the_export_is_regenerated_only_where_one_exists(tmp_path):
    root_a, root_b = tmp_path / "a", tmp_path / "b"
    for root in (root_a, root_b):
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "core.py").write_text("def core():\n    return 1\n")
    (root_b / "pkg" / "more.py").write_text("def more():\n    return 2\n")
    a, b = new_store(root_a, "ra"), new_store(root_b, "rb")
    reconcile_pass(a, root_a, PassOptions(workers=1))
    reconcile_pass(b, root_b, PassOptions(workers=1))
    assert refresh_export(a, root_a) is None  # no export yet: nothing to regenerate
    export_store(a, root_a, export_path(a))
    # the peer's file is now known to a's store and present in a's working tree
    shutil.copy(root_b / "pkg" / "more.py", root_a / "pkg" / "more.py")
    calls = []
    hook = refresher(root_a)
    report = exchange(a, b, on_merged=lambda s, n: (calls.append(n), hook(s, n)))
    assert report.merged_here and calls == [report.merged_here]
    import sqlite3

    with sqlite3.connect(export_path(a)) as db:
        paths = {p for (p,) in db.execute("SELECT path FROM documents")}
    assert "pkg/more.py" in paths
