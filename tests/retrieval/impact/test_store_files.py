"""retrieval/impact/store_files: the indexed files as an import resolver reads them."""

from repoctx.retrieval.impact.store_files import StoreFiles


def test_exists_read_and_listdir_answer_from_the_store(shop):
    files = StoreFiles(shop)
    assert files.exists("shop/cart.py") and not files.exists("shop/nope.py")
    assert "class Cart" in (files.read("shop/cart.py") or "")
    assert files.read("shop/nope.py") is None
    assert files.listdir("shop") == ("shop/__init__.py", "shop/cart.py", "shop/pricing.py")
    assert "README.md" in files.listdir("") and "shop/cart.py" not in files.listdir("")
