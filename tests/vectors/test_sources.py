from repoctx.memory import remember
from repoctx.vectors.sources import live_sources, page_of, source_id, split_source_id


def test_live_sources_are_files_symbols_and_memory(indexed):
    store = indexed.store
    remember(store, "design", "refunds", title="Refunds", body="Thirty days.")
    with store.snapshot() as snap:
        live = live_sources(store, snap)
    kinds = {s.kind for s in live.values()}
    assert kinds == {"file", "symbol", "mem"}
    readme = live["file:README.md"]
    assert readme.key == "repo/demo/file/README.md" and len(readme.version) == 64
    widget = live["symbol:pkg0.mod0.Widget0"]
    assert widget.path == "pkg0/mod0.py" and len(widget.version) == 64
    # a code file is embedded as its symbols; its windows only with CODE_FILE_WINDOWS
    assert "file:pkg0/mod0.py" not in live and "file:pkg0/__init__.py" in live
    memo = live["mem:design/refunds"]
    assert memo.key == "repo/demo/mem/design/refunds" and memo.text == "Refunds\nThirty days."
    with store.snapshot() as snap:
        assert set(live_sources(store, snap, ["mem"])) == {"mem:design/refunds"}


def test_source_ids_and_pages():
    sid = source_id("file", "a/b.py")
    assert sid == "file:a/b.py" and split_source_id(sid) == ("file", "a/b.py")
    assert 0 <= page_of(sid) < 256
    assert len({page_of(f"file:{i}") for i in range(5000)}) == 256


def test_code_file_windows_come_back_with_the_switch(indexed, monkeypatch):
    from repoctx.vectors import sources

    monkeypatch.setattr(sources, "CODE_FILE_WINDOWS", True)
    with indexed.store.snapshot() as snap:
        live = live_sources(indexed.store, snap)
    assert live["symbol:pkg0.mod0.Widget0"].version == live["file:pkg0/mod0.py"].version
