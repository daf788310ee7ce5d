"""trees/zdict: the preset dictionary is frozen, and streams name it."""

import zlib

import pytest

from repoctx.crdt import lww_register, record
from repoctx.errors import CorruptRecordError
from repoctx.trees import BY_NAME, codec, zdict

BIG = record.write({f"f{i}": lww_register.set_value(lww_register.empty(), "pkg/mod.py", 3, "r1")
                    for i in range(12)}, 3)


def test_the_first_dictionary_is_frozen():
    # Records stored with it are readable only with these exact bytes.
    assert zlib.adler32(zdict.RECORDS_1) == zdict.RECORDS_1_ID == 0xD3BB813D
    assert len(zdict.RECORDS_1) == 8190
    assert zdict.DICTIONARIES[zdict.RECORDS_1_ID] is zdict.RECORDS_1
    assert zlib.adler32(zdict.CURRENT) in zdict.DICTIONARIES


def test_a_stored_stream_names_its_dictionary_and_is_shorter_for_it():
    spec = BY_NAME["repo-context-symbol"]
    plain = codec.encode_plain(spec, BIG)
    stored = codec.pack(spec, plain)
    assert stored[2] & 0x20 and int.from_bytes(stored[3:7], "big") == zdict.RECORDS_1_ID
    assert len(stored) < len(zlib.compress(plain, 6)) + 1
    assert codec.plain(stored) == plain


def test_a_stream_naming_an_unknown_dictionary_is_a_corrupt_record():
    spec = BY_NAME["repo-context-xref"]
    plain = codec.encode_plain(spec, BIG)
    other = b"some other dictionary bytes" * 10
    deflate = zlib.compressobj(6, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, other)
    stored = b"\xc1" + deflate.compress(plain) + deflate.flush()
    with pytest.raises(CorruptRecordError, match="unknown dictionary"):
        codec.decode(spec, "repo/x/xref/a", stored)


def test_a_stream_cut_short_is_a_corrupt_record():
    spec = BY_NAME["repo-context-xref"]
    stored = codec.encode(spec, BIG)
    with pytest.raises(CorruptRecordError, match="repo-context-xref"):
        codec.decode(spec, "repo/x/xref/a", stored[:-5])
