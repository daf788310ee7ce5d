"""retrieval/impact — what a file or an edit touches: outline, related, changed."""

__all__: list[str] = []
