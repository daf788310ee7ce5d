import pytest

from repoctx.crdt import codec, lww_register, max_register, record, schema
from repoctx.errors import InvalidEncodingError, UnsupportedVersionError


def test_wrap_unwrap_round_trip():
    rec = record.write({"kind": lww_register.set_value(lww_register.empty(), "class", 1, "r")}, 1)
    data = schema.wrap(rec, 7, 1)
    assert schema.unwrap(data, 7, 1) == rec


def test_newer_version_and_missing_envelope_are_refused():
    rec = record.write({}, 1)
    with pytest.raises(UnsupportedVersionError, match="version 3"):
        schema.unwrap(schema.wrap(rec, 8, 3), 8, 1)
    with pytest.raises(InvalidEncodingError):
        schema.unwrap(record.encode(rec), 8, 1)
    with pytest.raises(UnsupportedVersionError, match="no upcaster"):
        schema.unwrap(schema.wrap(rec, 9, 1), 9, 2)
    with pytest.raises(InvalidEncodingError, match="family 9 where 8"):
        schema.unwrap(schema.wrap(rec, 9, 1), 8, 1)


def test_the_envelope_keeps_fields_in_name_order():
    def lww(value):
        return lww_register.set_value(lww_register.empty(), value, 1, "r")

    plain = record.write({"kind": lww("class")}, 1)
    meta = record.write({"kind": lww("class"), record.KEY: lww("repo/x/symbol/long"),
                         record.EXPIRES: max_register.MaxRegister(5)}, 1)
    for rec in (plain, meta, record.empty()):
        names = list(codec.unpack(schema.wrap(rec, 7, 1)))
        assert names == sorted(names) and schema.SCHEMA in names
