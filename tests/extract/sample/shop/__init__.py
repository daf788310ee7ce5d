"""A toy shop package used as an extraction fixture.

Everything here is written to exercise the extractor, not to run.
"""

from shop.payments import Ledger as Ledger

__all__ = ["Ledger", "VERSION"]

VERSION = "1.0"
DEBUG: bool = False
first, second = "a", "b"
alpha = beta = 0

try:
    from fast_json import loads
except ImportError:
    def loads(text, *, strict=True):
        """Fallback decoder."""
        raise NotImplementedError(text)

if DEBUG:
    LEVEL = 10

    def trace(message):
        print(message)
else:
    LEVEL = 30

    def trace(message):  # the quiet twin of the branch above
        return None
