"""vectors/ann — the approximate nearest-neighbour index: IVF arithmetic, its records,
and the persisted index."""

from typing import TYPE_CHECKING

from repoctx.lazy import export_lazily

if TYPE_CHECKING:
    from . import ann_index, index_record, ivf

__all__ = [
    "ann_index",
    "index_record",
    "ivf",
]

export_lazily(__name__, {
}, modules=("ann_index", "index_record", "ivf"))
