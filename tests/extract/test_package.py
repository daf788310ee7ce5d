from __future__ import annotations

import inspect

import repoctx.extract as package


def test_all_is_sorted_and_complete() -> None:
    public = {name for name, value in vars(package).items()
              if not name.startswith("_") and not inspect.ismodule(value)}
    assert package.__all__ == sorted(package.__all__)
    assert set(package.__all__) == public


def test_every_public_name_is_documented() -> None:
    for name in package.__all__:
        value = getattr(package, name)
        if callable(value):
            assert inspect.getdoc(value), name
