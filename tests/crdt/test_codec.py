"""crdt/codec: the shared frame (tag byte, version byte, msgpack body) and its errors."""

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import codec
from repoctx.crdt.tags import FORMAT_VERSION
from repoctx.errors import InvalidEncodingError, UnsupportedVersionError


def test_frame_is_tag_version_then_msgpack():
    data = codec.frame(5, {"a": [1, 2]})
    assert data[:2] == bytes((5, FORMAT_VERSION))
    assert msgpack.unpackb(data[2:]) == {"a": [1, 2]}


def test_unframe_inverts_frame_with_arrays_as_tuples():
    body = {"a": [1, (2, b"x")], 3: "s"}
    assert codec.unframe(5, codec.frame(5, body)) == {"a": (1, (2, b"x")), 3: "s"}
    assert codec.unframe(5, memoryview(codec.frame(5, [1]))) == (1,)


def test_pack_keeps_bytes_and_str_apart():
    assert codec.unpack(codec.pack([b"x", "x"])) == (b"x", "x")


@pytest.mark.parametrize("data, error, message", [
    (b"", InvalidEncodingError, "too short"),
    (b"\x05\x01", InvalidEncodingError, "too short"),
    ("\x05\x01\x90", InvalidEncodingError, "too short"),  # str, not bytes
    (bytes((4, FORMAT_VERSION)) + b"\x90", InvalidEncodingError, "type tag 4 where 5"),
    (bytes((5, FORMAT_VERSION + 1)) + b"\x90", UnsupportedVersionError,
     f"version {FORMAT_VERSION + 1}"),
    (bytes((5, FORMAT_VERSION)) + b"\xc1", InvalidEncodingError, "not msgpack"),
    (bytes((5, FORMAT_VERSION)) + b"\x90\x90", InvalidEncodingError, "not msgpack"),
])
def test_unframe_errors(data, error, message):
    with pytest.raises(error, match=message):
        codec.unframe(5, data)


def test_shape_error_names_the_type():
    err = codec.shape_error("OrMap", "entries is not a map")
    assert isinstance(err, InvalidEncodingError)
    assert str(err) == "malformed OrMap: entries is not a map"


field_maps = st.dictionaries(st.text(max_size=40), st.binary(max_size=300), max_size=12)


@settings(max_examples=300, deadline=None)
@given(field_maps, st.one_of(st.none(), st.tuples(st.integers(0, 2**32), st.integers(0, 2**32))))
def test_record_maps_pack_as_pack_does_and_unpack_back(fields, stamp):
    body = fields if stamp is None else {"$schema": stamp, **fields}
    data = codec.pack_fields(body)
    assert data == codec.pack(body)  # stores written by either encoder stay byte-identical
    assert codec.unpack_fields(data, stamped=stamp is not None) == body


@pytest.mark.parametrize("data", [codec.pack({"a": "text"}), codec.pack({1: b"x"}),
                                  codec.pack([b"x"]), b"\xc1"])  # fmt: skip
def test_a_record_map_of_another_shape_is_refused(data):
    with pytest.raises(InvalidEncodingError, match="a record is a map"):
        codec.unpack_fields(data)
