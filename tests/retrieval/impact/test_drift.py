"""retrieval/impact/drift: which files differ from the last index, and what they declared."""

import os

from repoctx.retrieval.impact.drift import binary, index_drift, on_disk
from tests.retrieval.small_repo import build


def test_the_index_drift_names_files_and_what_they_declared_when_indexed(tmp_path):
    ws = build(tmp_path)
    try:
        root = ws.root
        (root / "shop/cart.py").write_text((root / "shop/cart.py").read_text() + "\nX = 1\n")
        os.utime(root / "README.md", ns=(1, 1))  # a touch: stat differs, bytes do not
        (root / "shop/pricing.py").unlink()
        (root / "shop/new.py").write_text("def new():\n    return 1\n")
        (root / "logo.png").write_bytes(b"\x89PNG\x00\x00")
        drift = index_drift(ws, None)
        assert (drift.added, drift.updated, drift.removed) == (
            ("shop/new.py",), ("shop/cart.py",), ("shop/pricing.py",))
        assert set(drift.before["shop/cart.py"]) == {
            "shop.cart.Cart", "shop.cart.Cart.total", "shop.cart.checkout"}
        assert set(drift.gone["shop/pricing.py"]) == {"shop.pricing.Discount",
                                                      "shop.pricing.Discount.apply"}
        assert drift.baseline is None
        assert binary(ws, "logo.png") and not binary(ws, "shop/new.py")
        assert set(on_disk(ws, ["shop/new.py"])) == {"shop/new.py"}
        assert index_drift(ws, ["tests"]).updated == ()
    finally:
        ws.close()
