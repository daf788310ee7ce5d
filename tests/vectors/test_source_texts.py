from repoctx.vectors.source_texts import chunks_for
from repoctx.vectors.sources import live_sources


def test_chunks_of_each_kind(indexed):
    store = indexed.store
    with store.snapshot() as snap:
        live = live_sources(store, snap)
        readme, attrs = chunks_for(store, snap, live["file:README.md"])
        assert readme[0].text.startswith("# Payments") and attrs["kind"] == "file"
        (widget,), attrs = chunks_for(store, snap, live["symbol:pkg0.mod0.Widget0"])
        assert widget.text.startswith("class pkg0.mod0.Widget0\nclass Widget0(Base0)")
        assert attrs["symbolKind"] == "class" and attrs["path"] == "pkg0/mod0.py"
        assert chunks_for(store, snap, live["symbol:pkg0.mod0.LIMIT"])[0] == []
        assert chunks_for(store, snap, live["file:empty.txt"])[0] == []
