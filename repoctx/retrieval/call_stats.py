"""retrieval/call_stats — what the tools of one workspace answered, and what it saved.

A file counts as a full read saved once, the first time an answer stood in for reading it
(``note``'s ``stood_in``): sent as definitions or an outline rather than whole. A search
hit that names a file saves nothing (the agent still reads what it found), and a file
sent whole was read, only through the tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass
class CallStats:
    """Calls, tokens sent, and tokens of the full file reads those answers stood in for."""

    calls: int = 0
    response_tokens: int = 0
    full_read_tokens_replaced: int = 0
    replaced_paths: set[str] = field(default_factory=set)

    def note(self, response_tokens: int, stood_in: Mapping[str, int]) -> None:
        """Count one answered call; ``stood_in``: path -> full-read tokens of each file the
        answer stood in for (a file already counted is not counted again)."""
        self.calls += 1
        self.response_tokens += response_tokens
        for path, tokens in stood_in.items():
            if path not in self.replaced_paths:
                self.replaced_paths.add(path)
                self.full_read_tokens_replaced += tokens

    def as_json(self) -> dict[str, int]:
        """The ``repocontext_stats`` answer."""
        return {"calls": self.calls, "responseTokens": self.response_tokens,
                "fullReadTokensReplaced": self.full_read_tokens_replaced,
                "netSaved": self.full_read_tokens_replaced - self.response_tokens}
