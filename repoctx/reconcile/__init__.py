"""reconcile — walk, change detection, projections and the batched, resumable pass."""

__all__: list[str] = []
