"""session — reuse bookkeeping of ``repocontext_context``: receipts, possession, TTL.

One record per session at ``repo/{repoId}/session/{sessionId}`` (``session_record`` owns
its shape); ``bookkeeping`` reads and writes it in a store.
"""

from . import session_record
from .bookkeeping import (
    MAX_SESSION_ID,
    check_session_id,
    record_delivery,
    session_key,
    session_view,
)
from .session_record import SESSION_TTL_MS, SessionView, possession_claim, split_claim

__all__ = [
    "MAX_SESSION_ID",
    "SESSION_TTL_MS",
    "SessionView",
    "check_session_id",
    "possession_claim",
    "record_delivery",
    "session_key",
    "session_record",
    "session_view",
    "split_claim",
]
