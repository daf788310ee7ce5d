"""sync/token_env: the token variable is named without importing the store."""

from repoctx.sync import TOKEN_ENV
from tests.conftest import loaded_by


def test_the_token_variable_is_the_documented_one():
    assert TOKEN_ENV == "REPOCTX_SYNC_TOKEN"


def test_naming_it_imports_no_store():
    assert loaded_by("from repoctx.sync import TOKEN_ENV",
                     ("repoctx.store", "repoctx.sync.peer", "lmdb")) == []
