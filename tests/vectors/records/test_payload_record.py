import numpy as np

from repoctx.crdt import record
from repoctx.vectors.records import payload_record as pr


def test_payloads_are_content_addressed_and_write_once():
    vec = np.array([0.6, 0.8], dtype=np.float32)
    addr, data = pr.encode_vector(vec)
    assert addr == pr.address(data) and len(addr) == 64
    assert pr.payload_key("demo", addr) == f"repo/demo/vpay/{addr}"
    first = pr.payload_delta(None, data)
    assert pr.payload_delta(first, data) is None  # write-once: nothing to write again
    assert record.encode(first) == record.encode(pr.payload_delta(None, data))  # same bytes
    assert np.array_equal(pr.vector(first), vec) and pr.vector(None) is None
