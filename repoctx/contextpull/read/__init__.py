"""contextpull/read — the conforming reader (seed 000) and its tools. Never writes."""

__all__: list[str] = []
