"""retrieval/bundle — context bundles: ranking for a task, units, slices, packing and
the bytes they are sent as."""

__all__: list[str] = []
