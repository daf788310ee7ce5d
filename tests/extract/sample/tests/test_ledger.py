"""Tests of the ledger, used to check test-symbol detection."""

import pytest

from shop.payments import Ledger, LedgerError


class TestLedger:
    def test_get(self):
        assert Ledger().get("x") is None

    def helper(self):
        return Ledger()


class LedgerTests:
    def test_total(self):
        with pytest.raises(LedgerError):
            Ledger().total = 1


class Testimony:
    pass


def test_post():
    assert Ledger.post(1.0)


def make_ledger():
    return Ledger()
