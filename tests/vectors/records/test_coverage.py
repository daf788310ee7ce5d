"""The coverage digest: 257 rows when built, a membership scan when not."""

from repoctx.crdt import lww_register, record
from repoctx.vectors import backfill
from repoctx.vectors.records import coverage, membership


class CountingSnapshot:
    """Counts the rows a gap scan reads."""

    def __init__(self, snap):
        self.snap, self.gets, self.scans = snap, 0, 0

    def get(self, key):
        self.gets += 1
        return self.snap.get(key)

    def scan(self, prefix, **kw):
        self.scans += 1
        return self.snap.scan(prefix, **kw)


def test_the_gap_scan_reads_exactly_257_rows_when_built(indexed, embedder, monkeypatch):
    store = indexed.store
    first = backfill(store, embedder)
    assert first.digest_rebuilt and first.embedded > 50
    with store.snapshot() as snap:
        counting = CountingSnapshot(snap)
        found = coverage.read(counting, "demo", first.space)
    assert found is not None and found.rows_read == coverage.ROWS == 257
    assert counting.gets == 257 and counting.scans == 0
    assert len(found.entries) == first.embedded + first.nil

    def no_scan(*a, **k):
        raise AssertionError("a built digest must not fall back to the membership scan")

    monkeypatch.setattr(membership, "scan_covered", no_scan)
    again = backfill(store, embedder)
    assert again.gap_rows == 257 and again.embedded == again.retired == 0
    assert not again.digest_rebuilt


def test_a_damaged_or_foreign_digest_falls_back_to_membership(indexed, embedder):
    store = indexed.store
    first = backfill(store, embedder)
    with store.snapshot() as snap:
        assert coverage.read(snap, "demo", "another-space") is None
        built = coverage.read(snap, "demo", first.space)
    page = next(p for p in range(256) if any(coverage.page_of(s) == p for s in built.entries))
    tick = store.tick()  # the page loses its entries: it disagrees with the state row
    emptied = lww_register.set_value(lww_register.EMPTY, {}, tick, "x")
    store.merge(coverage.page_key("demo", page), record.write({coverage.ENTRIES: emptied}, tick))
    with store.snapshot() as snap:
        assert coverage.read(snap, "demo", first.space) is None
    healed = backfill(store, embedder)
    assert healed.digest_rebuilt and healed.embedded == 0 and healed.retired == 0
    with store.snapshot() as snap:
        assert coverage.read(snap, "demo", first.space).entries == built.entries


def test_writer_keeps_counts_in_the_state_row(store):
    with store.batch() as b:
        coverage.rebuild(b, "demo", "s", {}, store.tick(), "r")
    cov = coverage.CoverageWriter("demo", "s")
    cov.add("file:a.py", "v1", 2)
    cov.add("file:b.py", None, 0)
    with store.batch() as b:
        cov.apply(b, store.tick(), "r")
    cov.remove("file:a.py")
    with store.batch() as b:
        cov.apply(b, store.tick(), "r")
    with store.snapshot() as snap:
        assert coverage.read(snap, "demo", "s").entries == {"file:b.py": (None, 0)}
    with store.batch() as b:
        coverage.invalidate(b, "demo", store.tick(), "r")
    with store.snapshot() as snap:
        assert coverage.read(snap, "demo", "s") is None
