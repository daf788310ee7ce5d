"""Payments: a ledger with decorated, nested and conditional members."""

import functools
from typing import Any, overload


def audited(label):
    """Decorator factory that tags a function."""

    def wrap(func):
        @functools.wraps(func)
        def inner(*args, **kwargs):
            return func(*args, **kwargs)

        inner.label = label
        return inner

    return wrap


class LedgerError(Exception):
    """Raised when the books do not balance."""


class Ledger(dict, metaclass=type):
    '''Holds entries.

    The second paragraph is not part of the summary.
    '''

    currency = "EUR"
    rate: float = 1.0

    @overload
    def get(self, key: str) -> Any: ...

    @overload
    def get(self, key: str, default: Any) -> Any: ...

    def get(self, key, default=None):
        """Look an entry up."""
        return super().get(key, default)

    @property
    def total(self) -> float:
        return sum(self.values())

    @total.setter
    def total(self, value: float) -> None:
        raise LedgerError("read only")

    @audited("post")
    @staticmethod
    def post(
        amount: float,
        *,
        memo: str = "",  # a comment inside the parameters
    ) -> "Ledger":
        try:
            return Ledger(amount=amount)
        except (ValueError, LedgerError) as exc:
            raise RuntimeError(memo) from exc

    if hasattr(dict, "__or__"):
        def merge(self, other):
            return self | other
    else:
        def merge(self, other):
            merged = dict(self)
            merged.update(other)
            return merged

    try:
        import decimal
    except ImportError:
        def quantize(self, value):
            return round(value, 2)
    else:
        def quantize(self, value):
            return decimal.Decimal(value).quantize(decimal.Decimal("0.01"))
    finally:
        pass

    class Entry:
        """An entry of the ledger."""

        class Meta:
            ordering = ("when",)

        def __init__(self, when, amount):
            self.when = when
            self.amount = amount

        async def settle(self):
            async def confirm():
                return True

            return await confirm()

    to_cents = lambda self, value: int(value * 100)  # noqa: E731


async def reconcile(ledger: Ledger) -> None:
    """Reconcile asynchronously."""
    async with ledger:
        pass


def make_class():
    class Local(Ledger):
        def method(self):
            def helper():
                class Deep:
                    pass

                return Deep

            return helper

    return Local


square = lambda x: x * x  # noqa: E731
