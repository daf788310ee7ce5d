"""retrieval/index — the search tables repoctx builds inside its ContextPull export,
and when the export is refreshed."""

__all__: list[str] = []
