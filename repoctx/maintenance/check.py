"""maintenance/check — the whole check of a store and its export, as one JSON answer.

``repoctx check`` and ``repocontext_health`` both answer from here: the LMDB data file
against its meta pages (``trees.data_file``), every record of every tree decoded whole
(``trees.integrity``), and the export (``contextpull.integrity``: SQLite's own check,
the schema, the counts, every section against its hash; then ``retrieval.index.verify``:
the search tables against the sections). Damage is named down to tree and key, or
table and section, with the next step. Reads the store; a damaged export is marked
(``export_refresh.mark_damaged``) so the next ``repoctx index`` rebuilds it whole.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import lmdb

from repoctx.contextpull import check_export
from repoctx.contextpull.connection import read_only_uri
from repoctx.errors import RepoctxError
from repoctx.retrieval.index.export_refresh import mark_damaged
from repoctx.retrieval.index.verify import check_search_tables
from repoctx.store import LMDB_DIRNAME
from repoctx.trees import REPAIR_HINT, TreeCheck, check_directory, check_trees


def check_store(directory: Path, export: Path) -> dict[str, Any]:
    """Check the store directory ``directory`` and the export file ``export``."""
    lmdb_dir = directory / LMDB_DIRNAME
    store: dict[str, Any] = {"path": str(directory)}
    if not lmdb_dir.is_dir():
        store.update(ok=False, error=f"no repoctx store at {directory}; run `repoctx index`")
    else:
        try:
            store.update(_store_answer(check_directory(lmdb_dir)))
        except RepoctxError as exc:
            message = str(exc)
            store.update(ok=False, error=message if REPAIR_HINT in message else
                         f"{message}; {REPAIR_HINT}")
    return _answer(store, export_answer(export))


def check_open(env: lmdb.Environment, directory: Path, export: Path) -> dict[str, Any]:
    """Check a store already open in this process (LMDB allows one open per process)."""
    return _answer({"path": str(directory), **_store_answer(check_trees(env))},
                   export_answer(export))


def _store_answer(checks: list[TreeCheck]) -> dict[str, Any]:
    """``ok``, records read, damage, and each damaged tree's check."""
    damaged = [c for c in checks if not c.ok]
    answer: dict[str, Any] = {
        "ok": not damaged, "records": sum(c.sound for c in checks if c.tree),
        "damaged": sum(c.damaged for c in checks), "trees": [c.as_json() for c in damaged]}
    if damaged:
        answer["error"] = f"{_summary(damaged)}; {REPAIR_HINT}"
    return answer


def export_answer(export: Path) -> dict[str, Any]:
    """``ok`` and the problems of the export file."""
    problems = check_export(export)
    if export.is_file():
        problems = problems or _search_problems(export)
        if problems:
            mark_damaged(export)
    answer: dict[str, Any] = {"ok": not problems, "path": str(export), "problems": problems}
    if problems:
        answer["error"] = (f"{problems[0]}; run `repoctx repair` to rebuild the export"
                           " (the next `repoctx index` rebuilds it too)"
                           if export.exists() else f"{problems[0]}; run `repoctx index`")
    return answer


def _search_problems(export: Path) -> list[str]:
    """The search tables' disagreements with the sections of the sound export ``export``."""
    try:
        conn = sqlite3.connect(read_only_uri(export), uri=True)
    except sqlite3.Error as exc:
        return [f"{export} cannot be opened: {exc}"]
    conn.text_factory = lambda data: data.decode(errors="replace")
    try:
        return [f"{export}: {p}" for p in check_search_tables(conn)]
    except sqlite3.Error as exc:  # a damaged file fails anywhere: the finding
        return [f"{export}: {exc}"]
    finally:
        conn.close()


def _answer(store: dict[str, Any], export: dict[str, Any]) -> dict[str, Any]:
    return {"ok": store["ok"] and export["ok"], "store": store, "export": export}


def _summary(damaged: list[TreeCheck]) -> str:
    parts = [f"{c.tree or 'the main database'}: {c.damaged} damaged" for c in damaged]
    return "damage in " + ", ".join(parts)


def check_text(answer: dict[str, Any]) -> str:
    """The check as lines for a terminal."""
    store, export = answer["store"], answer["export"]
    lines = [f"store {store['path']}: " + ("ok" if store["ok"] else "DAMAGED")
             + (f" ({store['records']} records checked)" if "records" in store else "")]
    if "error" in store and not store.get("trees"):
        lines.append(f"  {store['error']}")
    for tree in store.get("trees", []):
        lines.append(f"  {tree['tree'] or 'main database'}: {tree['damaged']} damaged "
                     f"({tree['sound']} of {tree['entries']} records sound)")
        lines += [f"    {d['key'] or '-'}: {d['reason']}" for d in tree["damage"]]
    lines.append(f"export {export['path']}: " + ("ok" if export["ok"] else "DAMAGED"))
    lines += [f"  {p}" for p in export["problems"]]
    if not answer["ok"]:
        lines.append("run `repoctx repair` to rebuild what is derived and keep what decodes")
    return "\n".join(lines)
