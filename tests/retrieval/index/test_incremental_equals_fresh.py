"""An export patched run after run equals a fresh export of the same tree, table for table.

``REPOCTX_HISTORIES`` sets how many random histories Hypothesis tries (the suite's
default is small; the property was checked over 200).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repoctx import open_store
from repoctx.contextpull import export_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import EXPORT_NAME, refresh_export
from repoctx.retrieval.index.export_extras import export_extras
from tests.reconcile.helpers import write
from tests.retrieval.index.export_tables import export_tables

HISTORIES = int(os.environ.get("REPOCTX_HISTORIES", "8"))
WORDS = ("alpha", "beta", "gamma", "delta", "omega", "Kappa", "sigma")


def _index(root: Path) -> None:
    """One incremental ``repoctx index``: the pass, then the export refreshed."""
    with open_store(root, repo_id="hist") as store:
        reconcile_pass(store, root, PassOptions(workers=1))
        refresh_export(store, root, store.path / EXPORT_NAME)


def _fresh(root: Path, out: Path) -> None:
    """A fresh export of the store as the last pass left it (nothing lent by a previous)."""
    with open_store(root, repo_id="hist") as store:
        problems: list[str] = []
        export_store(store, root, out, finalize=export_extras(store, problems))
        assert problems == []


def _python(names: list[str], words: list[str]) -> str:
    body = " ".join(words)
    return "".join(f"def {name}_{i}():\n    '''{body}'''\n    return {i}\n\n\n"
                   for i, name in enumerate(names))


def _markdown(names: list[str], words: list[str]) -> str:
    return "".join(f"# {name.title()}\n\n{' '.join(words)} {name}\n\n" for name in names)


_names = st.lists(st.sampled_from(WORDS).map(str.lower), min_size=1, max_size=4)
_words = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)
_text = st.one_of(st.builds(lambda n, w: ("py", _python(n, w)), _names, _words),
                  st.builds(lambda n, w: ("md", _markdown(n, w)), _names, _words))
_step = st.one_of(
    st.tuples(st.just("edit"), st.integers(0, 99), _text),
    st.tuples(st.just("add"), st.integers(0, 99), _text),
    st.tuples(st.just("rename"), st.integers(0, 99), st.integers(0, 99)),
    st.tuples(st.just("delete"), st.integers(0, 99)),
)


def _apply(root: Path, files: dict[str, str], step: tuple) -> None:
    """One step of a history on ``files`` (path -> text) and on disk."""
    paths = sorted(files)
    kind, pick = step[0], step[1]
    if kind == "add" or not paths:
        if kind != "add":
            return
        ext, text = step[2]
        path = f"pkg/m{pick}.{ext}"
        files[path] = text
        write(root, {path: text})
        return
    path = paths[pick % len(paths)]
    if kind == "edit":
        text = step[2][1]
        files[path] = text
        write(root, {path: text})
    elif kind == "rename":
        new = f"pkg/r{step[2]}{Path(path).suffix}"
        if new not in files:
            files[new] = files.pop(path)
            (root / path).rename(root / new)
    else:
        del files[path]
        (root / path).unlink()


def _differences(incremental: dict, fresh: dict) -> list[str]:
    out = []
    for table in sorted(set(incremental) | set(fresh)):
        mine, theirs = incremental.get(table, []), fresh.get(table, [])
        if mine != theirs:
            out.append(f"{table}: incremental has {len(mine)} rows, fresh {len(theirs)};"
                       f" first differences {sorted(set(mine) ^ set(theirs), key=repr)[:3]}")
    return out


@settings(max_examples=HISTORIES, deadline=None, derandomize=HISTORIES <= 8,
          suppress_health_check=[HealthCheck.too_slow])
@given(start=st.lists(_text, min_size=1, max_size=6),
       steps=st.lists(_step, min_size=1, max_size=5))
def test_every_table_of_an_incremental_export_equals_a_fresh_one(start, steps):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        files = {f"pkg/s{i}.{ext}": text for i, (ext, text) in enumerate(start)}
        write(root, files)
        _index(root)
        for number, step in enumerate(steps):
            _apply(root, files, step)
            _index(root)
            _fresh(root, Path(tmp) / f"fresh{number}.sqlite")
            incremental = export_tables(root / ".repoctx" / EXPORT_NAME)
            fresh = export_tables(Path(tmp) / f"fresh{number}.sqlite")
            assert _differences(incremental, fresh) == [], f"after {steps[:number + 1]}"


def test_vocabulary_counts_forget_deleted_renamed_and_edited_sections(tmp_path):
    root = tmp_path / "repo"
    write(root, {f"f{i}.md": "# Notes\n\nalpha beta gamma\n" for i in range(6)})
    _index(root)
    (root / "f0.md").unlink()
    (root / "f1.md").rename(root / "g1.md")
    write(root, {"f2.md": "# Notes\n\nbeta gamma only\n"})
    _index(root)
    vocab = dict(export_tables(root / ".repoctx" / EXPORT_NAME)["repoctx_search_vocab"])
    assert vocab["alpha"] == 4 and vocab["beta"] == 5 and vocab["only"] == 1
