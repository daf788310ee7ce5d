"""contextpull/sections — documents into sections (Markdown, code, JSON, other text),
and their summaries. Pure; no I/O."""

__all__: list[str] = []
