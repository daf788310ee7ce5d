from repoctx.crdt import record
from repoctx.vectors.records import membership_record as mm


def test_keys_and_marker_kinds():
    assert mm.member_key("demo", "file:a.py") == "repo/demo/vmem/file:a.py"
    assert mm.nil_key("demo", "file:a.py") == "repo/demo/vmem/nil-file:a.py"
    assert mm.memkey_key("demo", "repo/demo/mem/t/i") == "repo/demo/vmem/memkey-repo/demo/mem/t/i"
    assert mm.marker_kind("nil-file:a.py") == ("nil", "file:a.py")
    assert mm.marker_kind("memkey-repo/demo/mem/t/i") == ("memkey", "repo/demo/mem/t/i")
    assert mm.marker_kind("file:a.py") == ("member", "file:a.py")


def test_one_flag_per_space_enable_wins_over_a_concurrent_retire():
    on = mm.enable_delta(None, "s1", 1 << 16, "a")
    assert mm.is_on(on, "s1") and not mm.is_on(on, "s2")
    assert mm.enable_delta(on, "s1", 2 << 16, "a") is None
    retire_here = mm.disable_delta(on, "s1", 3 << 16)
    assert not mm.is_on(record.merge(on, retire_here), "s1")
    reembed_elsewhere = mm.enable_delta(None, "s1", 3 << 16, "b")  # concurrent, unobserved
    merged = record.merge(record.merge(on, retire_here), reembed_elsewhere)
    assert mm.is_on(merged, "s1")  # the concurrent re-embed survives the retire
    assert record.merge(merged, retire_here) == merged
