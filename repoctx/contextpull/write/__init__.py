"""contextpull/write — the export: documents into a ContextPull store, in full or as a
patch of the previous one."""

__all__: list[str] = []
