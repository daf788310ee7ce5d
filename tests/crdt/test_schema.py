import pytest

from repoctx.crdt import codec, lww_register, max_register, record, schema
from repoctx.errors import InvalidEncodingError, UnsupportedVersionError


def test_wrap_unwrap_round_trip_and_upcasting():
    rec = record.write({"kind": lww_register.set_value(lww_register.empty(), "class", 1, "r")}, 1)
    data = schema.wrap(rec, 7, 1)
    assert schema.unwrap(data, 7, 1) == rec

    def rename_kind(fields):
        fields = dict(fields)
        fields["symbol_kind"] = fields.pop("kind")
        return fields

    schema.register_upcaster(7, 1, rename_kind)
    lifted = schema.unwrap(data, 7, 2)
    assert set(lifted.fields) == {"symbol_kind", record.TICK}


def test_newer_version_and_missing_envelope_are_refused():
    rec = record.write({}, 1)
    with pytest.raises(UnsupportedVersionError, match="version 3"):
        schema.unwrap(schema.wrap(rec, 8, 3), 8, 1)
    with pytest.raises(InvalidEncodingError):
        schema.unwrap(record.encode(rec), 8, 1)
    with pytest.raises(UnsupportedVersionError, match="no upcaster"):
        schema.unwrap(schema.wrap(rec, 9, 1), 9, 2)


def test_the_envelope_keeps_fields_in_name_order():
    def lww(value):
        return lww_register.set_value(lww_register.empty(), value, 1, "r")

    plain = record.write({"kind": lww("class")}, 1)
    meta = record.write({"kind": lww("class"), record.KEY: lww("repo/x/symbol/long"),
                         record.EXPIRES: max_register.MaxRegister(5)}, 1)
    for rec in (plain, meta, record.empty()):
        names = list(codec.unpack(schema.wrap(rec, 7, 1)))
        assert names == sorted(names) and schema.SCHEMA in names

    schema.register_upcaster(6, 1, lambda fields: {**fields, "added": fields["kind"]})
    lifted = schema.unwrap(schema.wrap(plain, 6, 1), 6, 2)
    assert list(lifted.fields) == sorted(lifted.fields)
