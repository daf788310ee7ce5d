"""trees/codec: the schema envelope on the symbol tree only; corrupt bytes name tree and key."""

import random

import pytest

from repoctx.crdt import codec, lww_register, record, schema
from repoctx.errors import CorruptRecordError
from repoctx.trees import BY_NAME, TREES
from repoctx.trees import codec as trees_codec
from repoctx.trees.codec import decode, encode

REC = record.write({"kind": lww_register.set_value(lww_register.empty(), "class", 3, "r1")}, 3)
ENVELOPED = [t for t in TREES if t.envelope is not None]


def test_only_the_symbol_tree_wraps_values():
    assert [t.name for t in ENVELOPED] == ["repo-context-symbol"]


@pytest.mark.parametrize("spec", TREES, ids=lambda t: t.name)
def test_round_trip_in_every_tree(spec):
    data = encode(spec, REC)
    assert decode(spec, "k", data) == REC
    body = codec.unpack(data)
    assert (schema.SCHEMA in body) == (spec.envelope is not None)


def test_plain_bytes_in_the_symbol_tree_are_corrupt():
    plain = record.encode(REC)
    with pytest.raises(CorruptRecordError) as caught:
        decode(BY_NAME["repo-context-symbol"], "repo/demo/symbol/a.B", plain)
    assert caught.value.tree == "repo-context-symbol"
    assert caught.value.key == "repo/demo/symbol/a.B" and "$schema" in caught.value.reason


@pytest.mark.parametrize("spec", TREES, ids=lambda t: t.name)
def test_garbage_raises_corrupt_record_error_naming_tree_and_key(spec):
    with pytest.raises(CorruptRecordError, match=f"'repo/x'.*{spec.name}"):
        decode(spec, "repo/x", b"\xc1\xc1")


@pytest.mark.parametrize("spec", TREES, ids=lambda t: t.name)
def test_a_damaged_field_is_caught_on_read_naming_tree_and_key(spec):
    """A record whose map decodes but whose field does not fails the read, never later,
    deep in a merge, as a bare 'not msgpack'."""
    rec = record.Record({"kind": b"\x01\x01\xc1", record.TICK: REC.fields[record.TICK]})
    with pytest.raises(CorruptRecordError, match=f"'repo/y'.*{spec.name}.*kind"):
        decode(spec, "repo/y", encode(spec, rec))


def test_checked_bytes_are_checked_once_and_damaged_bytes_every_time():
    spec = TREES[0]
    good = encode(spec, REC)
    damaged = encode(spec, record.Record({"kind": b"\x01\x01\xc1",
                                          record.TICK: REC.fields[record.TICK]}))
    for _ in range(3):  # a damaged value never joins the checked ones
        with pytest.raises(CorruptRecordError):
            decode(spec, "repo/z", damaged)
    assert decode(spec, "repo/a", good) == decode(spec, "repo/b", bytes(good)) == REC
    assert hash((spec.name, good)) in trees_codec._checked
    assert hash((spec.name, damaged)) not in trees_codec._checked


BIG = record.write({f"f{i}": lww_register.set_value(lww_register.empty(), "src/pkg/module.py",
                                                     3, "r1") for i in range(12)}, 3)
COMPRESSING = [t for t in TREES if t.compress]


def test_compressed_trees_are_the_record_trees_whose_values_are_not_already_packed():
    assert {t.name for t in COMPRESSING} == {
        "repo-context-structural", "repo-context-symbol", "repo-context-xref",
        "repo-context-memory", "repo-context-session", "repo-context-coverage"}


@pytest.mark.parametrize("spec", TREES, ids=lambda t: t.name)
def test_a_large_record_is_stored_compressed_where_its_tree_says_and_reads_back(spec):
    stored = encode(spec, BIG)
    plain = trees_codec.encode_plain(spec, BIG)
    assert (stored[0] == trees_codec.COMPRESSED) == spec.compress
    assert len(stored) < len(plain) / 2 if spec.compress else stored == plain
    assert decode(spec, "k", stored) == BIG
    assert trees_codec.plain(stored) == plain


def test_small_and_incompressible_encodings_stay_plain():
    spec = BY_NAME["repo-context-xref"]
    assert encode(spec, REC) == record.encode(REC)  # under COMPRESS_MIN bytes
    noise = random.Random(15).randbytes(512)
    assert trees_codec.pack(spec, noise) == noise  # zlib would not make it shorter


@pytest.mark.parametrize("spec", COMPRESSING, ids=lambda t: t.name)
def test_records_stored_plain_by_format_1_still_read(spec):
    plain = trees_codec.encode_plain(spec, BIG)
    assert plain[0] != trees_codec.COMPRESSED
    assert decode(spec, "k", plain) == BIG


def test_a_damaged_compressed_record_is_corrupt_naming_tree_and_key():
    spec = BY_NAME["repo-context-structural"]
    stored = bytearray(encode(spec, BIG))
    stored[len(stored) // 2] ^= 0xFF  # zlib's checksum catches what msgpack would not
    with pytest.raises(CorruptRecordError, match="'repo/x/file/a.py'.*structural"):
        decode(spec, "repo/x/file/a.py", bytes(stored))


@pytest.mark.parametrize("size", [64, 300, 5_000, 70_000])
def test_every_size_round_trips_through_its_own_window(size):
    spec = BY_NAME["repo-context-xref"]
    text = ("def f(x):\n    return x + %d\n" * (size // 20 + 1))[:size].encode()
    stored = trees_codec.pack(spec, text)
    assert stored[0] == trees_codec.COMPRESSED and trees_codec.plain(stored) == text
