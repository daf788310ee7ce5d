"""Archive export/import: full records, idempotent merges, resumable with a local marker."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from repoctx import memory, open_store
from repoctx.errors import ToolError
from repoctx.memory import archive

from .conftest import key
from .test_entries import stored


@pytest.fixture
def other(tmp_path: Path):
    s = open_store(tmp_path / "other", repo_id="demo", replica_id="r-other")
    yield s
    s.close()


def fill(store):
    memory.remember(store, "design", "a", title="A", body="alpha\n", tags=["x"],
                    add_links={"see": [key("mem", "design/b")]})
    memory.remember(store, "design", "b", title="B")
    memory.remember(store, "ops", "c", title="C")
    memory.forget(store, key("mem", "ops/c"))


def test_export_then_import_reproduces_the_tree_byte_for_byte(store, other, tmp_path):
    fill(store)
    path = tmp_path / "mem.jsonl"
    assert memory.export_archive(store, path)["records"] == 3  # the tombstone too
    header = json.loads(path.read_text().splitlines()[0])
    assert header["archive"] == "repoctx-memory" and header["repoId"] == "demo"
    got = memory.import_archive(other, path)
    assert got == {"records": 3, "changed": 3, "resumedAt": 0}
    assert stored(other) == stored(store)
    assert memory.import_archive(other, path)["changed"] == 0  # twice: nothing new
    assert stored(other) == stored(store)


def test_import_onto_a_diverged_store_loses_nothing(store, other, tmp_path):
    fill(store)
    path = tmp_path / "mem.jsonl"
    memory.export_archive(store, path)
    memory.import_archive(other, path)
    memory.update(other, key("mem", "design/a"), {"body": "alpha\nmore from other\n"},
                  add_tags=["y"])
    memory.remember(other, "new", "d", title="D")
    memory.update(store, key("mem", "design/b"), {"title": "B2"})
    memory.export_archive(store, path)
    memory.import_archive(other, path)
    a = memory.recall(other, key("mem", "design/a"))
    assert a["fields"]["body"] == "alpha\nmore from other\n" and a["tags"] == ["x", "y"]
    assert memory.recall(other, key("mem", "design/b"))["fields"]["title"] == "B2"
    assert memory.recall(other, key("mem", "new/d"))["exists"] is True
    assert memory.recall(other, key("mem", "ops/c"))["exists"] is False


def test_an_interrupted_import_resumes_from_its_marker(store, other, tmp_path, monkeypatch):
    for i in range(5):
        memory.remember(store, "t", f"e{i}", title=str(i))
    path = tmp_path / "mem.jsonl"
    memory.export_archive(store, path)
    real, calls = archive._merge_batch, []

    def crash_on_second(*args):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("power cut")
        return real(*args)

    monkeypatch.setattr(archive, "_merge_batch", crash_on_second)
    with pytest.raises(RuntimeError):
        memory.import_archive(other, path, batch_records=2)
    markers = list(_local(other, archive.MARKER_PREFIX))
    assert [v for _, v in markers] == [{"done": 2}]
    assert not markers[0][0].startswith("repo/")  # outside every repository's range
    assert memory.list_topics(other)["total"] == 2  # the marker is not memory
    memory.export_archive(other, tmp_path / "partial.jsonl")
    assert "memory-archive" not in (tmp_path / "partial.jsonl").read_text()
    monkeypatch.setattr(archive, "_merge_batch", real)
    got = memory.import_archive(other, path, batch_records=2)
    assert got["resumedAt"] == 2 and got["changed"] == 3
    assert stored(other) == stored(store)
    assert list(_local(other, archive.MARKER_PREFIX)) == []


def _local(store, prefix):
    with store.snapshot() as snap:
        for name in list(snap.local_names(prefix)):
            yield name, snap.get_local(name)


def bad_archives(good: str):
    header, row = good.splitlines()[:2]
    line = json.loads(row)
    wrong_tree = json.dumps({**line, "key": "repo/demo/file/a.py"})
    corrupt = json.dumps({**line, "record": base64.b64encode(b"\x81\xa1x\xc4\x01\x09").decode()})
    return {
        "empty": "",
        "not json": header + "\n{oops\n",
        "no header": row + "\n",
        "wrong version": header.replace('"version": 1', '"version": 9') + "\n" + row + "\n",
        "wrong tree": header + "\n" + row + "\n" + wrong_tree + "\n",
        "corrupt record": header + "\n" + row + "\n" + corrupt + "\n",
        "not base64": header + "\n" + json.dumps({**line, "record": "***"}) + "\n",
    }


def test_a_bad_archive_is_a_tool_error_with_nothing_written(store, other, tmp_path):
    fill(store)
    path = tmp_path / "mem.jsonl"
    memory.export_archive(store, path)
    for name, text in bad_archives(path.read_text()).items():
        bad = tmp_path / "bad.jsonl"
        bad.write_text(text)
        with pytest.raises(ToolError):
            memory.import_archive(other, bad)
        assert stored(other) == {}, name
    with pytest.raises(ToolError, match="cannot read"):
        memory.import_archive(other, tmp_path / "missing.jsonl")
