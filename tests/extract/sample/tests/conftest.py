import pytest


@pytest.fixture
def ledger():
    from shop.payments import Ledger

    return Ledger()
