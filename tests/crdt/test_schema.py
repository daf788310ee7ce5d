import pytest

from repoctx.crdt import lww_register, record, schema
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
