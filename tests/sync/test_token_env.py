"""sync/token_env: the token variable is named without importing the store."""

import subprocess
import sys

from repoctx.sync import TOKEN_ENV


def test_the_token_variable_is_the_documented_one():
    assert TOKEN_ENV == "REPOCTX_SYNC_TOKEN"


def test_naming_it_imports_no_store():
    code = ("import sys; from repoctx.sync import TOKEN_ENV; "
            "print(sorted(m for m in ('repoctx.store', 'repoctx.sync.peer', 'lmdb') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
