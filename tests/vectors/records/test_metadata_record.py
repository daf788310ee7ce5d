from repoctx.crdt import record
from repoctx.vectors.records import metadata_record as mr


def test_metadata_round_trip_and_retire():
    vid = mr.vector_id("abcd", "file:a.py", 2)
    assert vid == "abcd/file:a.py#2"
    assert mr.metadata_key("demo", vid) == "repo/demo/vec/abcd/file:a.py#2"
    assert mr.metadata_key("demo", vid).startswith(mr.space_prefix("demo", "abcd"))
    meta = mr.VectorMeta(vid, "repo/demo/file/a.py", "file:a.py", "ff" * 32, "abcd", (0, 9),
                         {"kind": "file", "version": "v1"})
    rec = mr.meta_delta(None, meta, 1 << 16, "r")
    assert mr.meta_of(vid, rec) == meta
    assert mr.meta_delta(rec, meta, 2 << 16, "r") is None
    retired = record.merge(rec, mr.retire_delta(rec, 3 << 16, "r"))
    assert record.is_tombstone(retired) and mr.meta_of(vid, retired) is None
