"""The project's copy of the conformance cases still matches the reference suite.

The reference is ``../shared/conformance/contextpull`` beside the checkout, or the folder
``$REPOCTX_CONFORMANCE_REFERENCE`` names; without either the check is skipped, since a
plain clone carries only its own copy. Only the data is compared (``corpus/`` and
``cases.json``): the copy's README adds a note of where it came from.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .conftest import CONFORMANCE

REFERENCE_ENV = "REPOCTX_CONFORMANCE_REFERENCE"
CHECKOUT = Path(__file__).resolve().parents[2]
REFERENCE = Path(os.environ.get(REFERENCE_ENV)
                 or CHECKOUT.parent / "shared" / "conformance" / "contextpull")


def data_files(root: Path) -> dict[str, bytes]:
    """Every file of ``cases.json`` and ``corpus/`` by its path under ``root``."""
    files = [root / "cases.json", *(p for p in (root / "corpus").rglob("*") if p.is_file())]
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in files}


def test_the_copy_is_whole_and_small():
    copy = data_files(CONFORMANCE)
    assert "cases.json" in copy and "corpus/.contextpullignore" in copy
    assert len(copy) == 10 and sum(map(len, copy.values())) < 64_000


@pytest.mark.skipif(not REFERENCE.is_dir(),
                    reason=f"no reference suite at {REFERENCE} (set {REFERENCE_ENV})")
def test_the_copy_matches_the_reference_suite():
    reference, copy = data_files(REFERENCE), data_files(CONFORMANCE)
    assert sorted(copy) == sorted(reference)
    changed = [name for name in reference if copy[name] != reference[name]]
    assert changed == [], f"the project's copy differs from {REFERENCE}: {changed}"
