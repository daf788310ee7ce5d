"""retrieval/call_stats — what the tools of one workspace answered, and what it saved."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CallStats:
    """Calls, tokens sent, and tokens of the full file reads those answers stood in for."""

    calls: int = 0
    response_tokens: int = 0
    full_read_tokens_replaced: int = 0

    def note(self, response_tokens: int, replaced: int) -> None:
        """Count one answered call."""
        self.calls += 1
        self.response_tokens += response_tokens
        self.full_read_tokens_replaced += replaced

    def as_json(self) -> dict[str, int]:
        """The ``repocontext_stats`` answer."""
        return {"calls": self.calls, "responseTokens": self.response_tokens,
                "fullReadTokensReplaced": self.full_read_tokens_replaced,
                "netSaved": self.full_read_tokens_replaced - self.response_tokens}
