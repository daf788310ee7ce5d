"""reconcile/analyse: one read of a file gives its digest and the projections asked for."""

import hashlib

import pytest

from repoctx.reconcile import analyse as an
from repoctx.reconcile.analyse import Job, analyse
from repoctx.reconcile.nodes.content_record import unpack_body

SOURCE = 'class Cart:\n    """A cart."""\n\n    def total(self):\n        return helper()\n'


@pytest.fixture
def root(tmp_path):
    (tmp_path / "cart.py").write_text(SOURCE)
    (tmp_path / "img.png").write_bytes(b"\x89PNG\x00\x00\x01" * 10)
    return tmp_path


def test_a_python_file_gets_digest_tokens_body_and_declarations(root):
    got = analyse(str(root), Job("cart.py", content=True, symbols=True))
    assert got.digest == hashlib.sha256(SOURCE.encode()).hexdigest()
    assert got.size == len(SOURCE) and got.language == "python" and got.error is None
    assert unpack_body(got.body) == SOURCE and got.tokens > 0
    assert set(got.decls) == {"cart.Cart", "cart.Cart.total"}
    assert "helper" in got.decls["cart.Cart.total"].refs


def test_only_the_projections_asked_for(root):
    no_symbols = analyse(str(root), Job("cart.py", content=True, symbols=False))
    assert no_symbols.decls is None and unpack_body(no_symbols.body) == SOURCE
    no_content = analyse(str(root), Job("cart.py", content=False, symbols=True))
    assert no_content.body is None and no_content.tokens is None and no_content.decls


def test_binary(root):
    got = analyse(str(root), Job("img.png", content=True, symbols=True))
    assert got.binary and got.digest and got.body is None and got.decls is None


def test_too_large_is_hashed_but_not_projected(root, monkeypatch):
    monkeypatch.setattr(an, "MAX_READ_BYTES", 10)
    monkeypatch.setattr(an, "_CHUNK", 7)  # several chunks
    got = analyse(str(root), Job("cart.py", content=True, symbols=True))
    assert got.too_large and not got.binary
    assert got.digest == hashlib.sha256(SOURCE.encode()).hexdigest()
    assert got.size == len(SOURCE) and got.body is None and got.decls is None


def test_known_digest_short_circuits(root):
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()
    got = analyse(str(root), Job("cart.py", content=True, symbols=True, known_digest=digest))
    assert got.digest == digest and got.body is None and got.decls is None and got.tokens is None
    changed = analyse(str(root), Job("cart.py", content=True, symbols=True, known_digest="x"))
    assert unpack_body(changed.body) == SOURCE


def test_an_unreadable_path_comes_back_with_an_error(root):
    got = analyse(str(root), Job("missing.py", content=True, symbols=True))
    assert got.error == "No such file or directory" and got.digest is None
    (root / "dir.py").mkdir()
    assert analyse(str(root), Job("dir.py", content=True, symbols=True)).error


def test_an_analysis_that_raises_comes_back_failed_not_raised(tmp_path, monkeypatch):
    """Fault injection: an extractor bug on one file must not escape the worker."""
    from repoctx.reconcile import analyse as analyse_module

    def broken(path, symbols, text):
        raise RecursionError("maximum recursion depth exceeded")

    (tmp_path / "m.py").write_text("def f():\n    pass\n")
    monkeypatch.setattr(analyse_module, "declarations_of", broken)
    got = analyse_module.analyse(str(tmp_path), analyse_module.Job("m.py", True, True))
    assert got.failed and got.error == "RecursionError: maximum recursion depth exceeded"
