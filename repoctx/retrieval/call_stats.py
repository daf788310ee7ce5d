"""retrieval/call_stats — what the tools of one workspace answered, and what it saved.

A file counts as a full read saved once, the first time an answer stood in for reading it
(``note``'s ``stood_in``): sent as definitions or an outline rather than whole. A search
hit that names a file saves nothing (the agent still reads what it found), and a file
sent whole was read, only through the tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from repoctx.tokenizer import count_tokens

PENDING_MAX = 16
"""Most answers kept uncounted: past it they are counted, so a server holds few."""


@dataclass
class CallStats:
    """Calls, tokens sent, and tokens of the full file reads those answers stood in for.

    An answer's tokens are counted when they are first asked for (``as_json``), or once
    ``PENDING_MAX`` answers wait: a one-shot ``repoctx call`` then never loads the
    tokenizer (~0.2 s of a fresh process) to count an answer nobody asks about."""

    calls: int = 0
    response_tokens: int = 0
    full_read_tokens_replaced: int = 0
    replaced_paths: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)
    """Answers sent, as serialized, whose tokens are not counted yet."""

    def note(self, response: int | str, stood_in: Mapping[str, int]) -> None:
        """Count one answered call: ``response`` is its token count, or the answer as
        sent, to count later; ``stood_in``: path -> full-read tokens of each file the
        answer stood in for (a file already counted is not counted again)."""
        self.calls += 1
        if isinstance(response, int):
            self.response_tokens += response
        else:
            self.pending.append(response)
            if len(self.pending) >= PENDING_MAX:
                self._count()
        for path, tokens in stood_in.items():
            if path not in self.replaced_paths:
                self.replaced_paths.add(path)
                self.full_read_tokens_replaced += tokens

    def _count(self) -> None:
        self.response_tokens += sum(map(count_tokens, self.pending))
        self.pending.clear()

    def as_json(self) -> dict[str, int]:
        """The ``repocontext_stats`` answer."""
        self._count()
        return {"calls": self.calls, "responseTokens": self.response_tokens,
                "fullReadTokensReplaced": self.full_read_tokens_replaced,
                "netSaved": self.full_read_tokens_replaced - self.response_tokens}
