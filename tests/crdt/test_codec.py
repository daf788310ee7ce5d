"""crdt/codec: the shared frame (tag byte, version byte, msgpack body) and its errors."""

import msgpack
import pytest

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


@pytest.mark.parametrize("length", [0, 1, 15, 16, 0xFFFF, 0x10000])
def test_array_header_is_what_pack_writes_before_the_items(length):
    header = codec.array_header(length)
    assert len(header) == codec.array_header_size(length)
    assert codec.pack([None] * length)[:len(header)] == header
