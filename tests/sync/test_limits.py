"""sync/limits: the defaults sync-serve documents, readable without the HTTP stack."""

from repoctx.sync import TOKEN_ENV
from repoctx.sync.limits import DEFAULT_LIMITS, MAX_BODY, TOKEN_HINT, Limits, Timeouts
from tests.conftest import loaded_by


def test_the_defaults_hold_together():
    assert Limits() == DEFAULT_LIMITS and Limits().max_body == MAX_BODY == 512 << 20
    assert Limits().max_in_flight == 2 * MAX_BODY and Timeouts().head_s < Timeouts().idle_s
    assert "token_urlsafe" in TOKEN_HINT


def test_reading_them_imports_no_server():
    assert loaded_by("import repoctx.sync.limits", ("asyncio", "uvicorn", "repoctx.store")) == []


def test_the_token_variable_is_the_documented_one():
    assert TOKEN_ENV == "REPOCTX_SYNC_TOKEN"


def test_naming_it_imports_no_store():
    assert loaded_by("from repoctx.sync import TOKEN_ENV",
                     ("repoctx.store", "repoctx.sync.peer", "lmdb")) == []
