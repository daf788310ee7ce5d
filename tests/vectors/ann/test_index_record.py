import numpy as np

from repoctx.crdt import record
from repoctx.vectors.ann import index_record as ir


def test_layout_is_one_prefix_per_space():
    assert ir.manifest_key("demo", "s1") == "repo/demo/vidx/s1/manifest"
    assert ir.chunk_key("demo", "s1", 3, 7, 1) == "repo/demo/vidx/s1/g000003/c00007/00001"
    assert ir.chunk_key("demo", "s1", 3, 7, 1).startswith(ir.gen_prefix("demo", "s1", 3))
    assert ir.gen_prefix("demo", "s1", 3).startswith(ir.space_prefix("demo", "s1"))
    assert not ir.manifest_key("demo", "s10").startswith(ir.space_prefix("demo", "s1"))


def test_posting_chunks_stay_within_64_kib():
    posting = ir.Posting()
    vec = np.ones(384, dtype="<f4").tobytes()
    while posting.fits("x" * 40, 384):
        posting.append("x" * 40, "ab" * 32, vec)
    rec = ir.value_delta(posting.wire(), 1 << 16, "r")
    assert len(posting.ids) > 30 and len(record.encode(rec)) <= ir.CHUNK_BYTES
    back = ir.posting_of(rec)
    assert back.ids == posting.ids and back.matrix(384).shape == (len(posting.ids), 384)


def test_centroids_split_into_bounded_parts():
    parts = ir.centroid_parts(np.zeros((141, 384), dtype=np.float32))
    assert len(parts) > 1 and all(len(p) <= ir.CHUNK_BYTES for p in parts)
    assert sum(len(p) for p in parts) == 141 * 384 * 4
