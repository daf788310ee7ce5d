"""maintenance/check: one answer for the store and its export, damage named."""

from __future__ import annotations

import os
import random
import shutil
import sqlite3

from repoctx.maintenance import check_store, check_text
from repoctx.maintenance.check import check_open, export_answer
from repoctx.retrieval import EXPORT_NAME
from repoctx.retrieval.index.export_refresh import DAMAGED_SUFFIX
from repoctx.tools.status import health
from tests.damage import flip


def test_a_sound_store_and_export_check_ok(shop, tmp_path):
    copy = tmp_path / "store"
    shutil.copytree(shop.store.path, copy, ignore=shutil.ignore_patterns("*.lock"))
    answer = check_store(copy, copy / EXPORT_NAME)
    assert answer["ok"] is True and answer["store"]["records"] > 0
    assert answer["store"]["damaged"] == 0 and answer["export"]["problems"] == []
    assert check_text(answer).splitlines()[0].endswith("records checked)")


def test_no_store_is_not_ok_and_says_what_to_run(tmp_path):
    answer = check_store(tmp_path / "none", tmp_path / "none" / EXPORT_NAME)
    assert answer["ok"] is False and "repoctx index" in answer["store"]["error"]


def test_a_damaged_record_names_tree_key_and_repair(fresh_shop):
    store = fresh_shop.store
    key = store.key("file", "shop/cart.py")
    with store.trees.env.begin(write=True, db=store.trees.dbs["repo-context-structural"]) as t:
        t.put(key.encode(), b"\x81\xa4size\xc4\x03\x01\x01\xc1")
    answer = check_open(store.trees.env, store.path, fresh_shop.export)
    assert answer["ok"] is False and "repoctx repair" in answer["store"]["error"]
    [tree] = answer["store"]["trees"]
    assert tree["tree"] == "repo-context-structural" and tree["damage"][0]["key"] == key
    assert key in check_text(answer)
    assert health(fresh_shop)["ok"] is False  # health says what check says


def test_a_damaged_export_makes_health_not_ok(fresh_shop):
    flip(fresh_shop.export, 2000, random.Random(7), start=4096)
    got = health(fresh_shop)
    assert got["ok"] is False and got["store"]["ok"] is True
    assert got["export"]["problems"] and "repoctx repair" in got["export"]["error"]


def _indexed(root):
    """The small shop repository indexed (pass and export); its export's path."""
    from repoctx import open_store
    from repoctx.reconcile import PassOptions, reconcile_pass
    from repoctx.retrieval import refresh_export
    from tests.reconcile.helpers import write
    from tests.retrieval.small_repo import FILES

    if not root.exists():
        write(root, FILES)
    with open_store(root, repo_id="shop") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        report = refresh_export(store, root, store.path / EXPORT_NAME)
    return root / ".repoctx" / EXPORT_NAME, report


def _texts(export):
    with sqlite3.connect(export) as conn:
        return dict(conn.execute("SELECT id, text FROM sections"))


def _flip_in_text(export, rng, texts):
    """Flip one random bit of one byte inside a random section's text, in the file's bytes
    (SQLite's own check cannot see it: the page stays well-formed); returns the section id."""
    data = bytearray(export.read_bytes())
    while True:
        sid = rng.choice(sorted(texts))
        body = texts[sid].encode()
        at = data.find(body)
        if len(body) >= 16 and at >= 0:
            break
    offset = at + rng.randrange(len(body))
    data[offset] ^= 1 << rng.randrange(8)
    export.write_bytes(bytes(data))
    return sid


def test_every_flip_inside_a_sections_text_is_reported_and_the_next_index_repairs_it(tmp_path):
    export, _ = _indexed(tmp_path / "repo")
    texts = _texts(export)
    pristine = export.read_bytes()
    rng = random.Random(26)
    for _ in range(32):
        export.write_bytes(pristine)
        _flip_in_text(export, rng, texts)
        answer = export_answer(export)
        assert answer["ok"] is False and answer["problems"], "a flip passed the check"
    assert "repoctx index" in answer["error"]
    # The last damaged file (its stat changed, and check marked it) is rebuilt whole.
    _, report = _indexed(tmp_path / "repo")
    assert report is not None and not report.patched
    assert export_answer(export)["ok"] is True and _texts(export) == texts


def test_damage_is_named_by_table_section_and_path(tmp_path):
    export, _ = _indexed(tmp_path / "repo")
    with sqlite3.connect(export) as conn:
        sid, path = conn.execute("SELECT s.id, d.path FROM sections s JOIN documents d"
                                 " ON d.doc_id = s.doc_id ORDER BY s.rowid LIMIT 1").fetchone()
        conn.execute("UPDATE sections SET text = 'def Xake_response(): pass' WHERE id = ?",
                     (sid,))
    problems = export_answer(export)["problems"]
    assert any(f"sections: section {sid} of {path}" in p and "SHA-256" in p for p in problems)
    assert any(p.startswith(f"{export}: sections_fts: row") for p in problems)


def test_damage_that_keeps_the_files_stat_is_rebuilt_once_check_found_it(tmp_path):
    export, _ = _indexed(tmp_path / "repo")
    texts = _texts(export)
    before = os.stat(export)
    _flip_in_text(export, random.Random(3), texts)
    os.utime(export, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert _indexed(tmp_path / "repo")[1] is None  # looks current: the stat is the same
    assert export_answer(export)["ok"] is False
    assert (export.parent / (export.name + DAMAGED_SUFFIX)).exists()
    _, report = _indexed(tmp_path / "repo")
    assert report is not None and not report.patched
    assert export_answer(export)["ok"] is True and _texts(export) == texts
    assert not (export.parent / (export.name + DAMAGED_SUFFIX)).exists()
    assert _indexed(tmp_path / "repo")[1] is None


def test_search_tables_that_disagree_with_the_sections_are_reported(tmp_path):
    export, _ = _indexed(tmp_path / "repo")
    with sqlite3.connect(export) as conn:
        conn.execute("UPDATE repoctx_search_vocab SET n = n + 1 WHERE term ="
                     " (SELECT min(term) FROM repoctx_search_vocab)")
    problems = export_answer(export)["problems"]
    assert any("repoctx_search_vocab: 1 terms miscounted" in p for p in problems)
