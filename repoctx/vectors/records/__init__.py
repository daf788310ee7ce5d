"""vectors/records — the vector trees' records: membership, payload, metadata and the
coverage digest."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import coverage, membership, membership_record, metadata_record, payload_record

__all__ = [
    "coverage",
    "membership",
    "membership_record",
    "metadata_record",
    "payload_record",
]

export_lazily(__name__, {
}, modules=("coverage", "membership", "membership_record", "metadata_record", "payload_record"))
