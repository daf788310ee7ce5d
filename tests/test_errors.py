"""errors: one hierarchy under RepoctxError, drawn in the module docstring."""

import inspect
import re

import pytest

from repoctx import errors

CLASSES = {name: cls for name, cls in vars(errors).items()
           if inspect.isclass(cls) and issubclass(cls, BaseException)
           and cls.__module__ == errors.__name__}


def drawn_parents() -> dict[str, str | None]:
    """Class -> parent as the docstring's tree draws it (4 columns per level)."""
    parents: dict[str, str | None] = {}
    stack: list[str] = []
    root_column = None
    for line in errors.__doc__.splitlines():
        match = re.search(r"\b([A-Z]\w+Error)\b", line)
        if not match or not re.fullmatch(r"[\s│├└─]*", line[:match.start()]):
            continue
        if root_column is None:
            root_column = match.start()
        depth = (match.start() - root_column) // 4
        stack[depth:] = [match.group(1)]
        parents[match.group(1)] = stack[depth - 1] if depth else None
    return parents


def test_every_class_derives_from_repoctx_error():
    assert len(CLASSES) >= 20
    for name, cls in CLASSES.items():
        assert issubclass(cls, errors.RepoctxError), name


def test_the_docstring_tree_names_every_class_under_its_real_parent():
    drawn = drawn_parents()
    assert set(drawn) == set(CLASSES)
    for name, parent in drawn.items():
        cls = CLASSES[name]
        if parent is None:
            assert cls is errors.RepoctxError
        else:
            assert cls.__bases__ == (CLASSES[parent],), name


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_every_class_has_a_docstring(name):
    assert (CLASSES[name].__doc__ or "").strip(), name


def test_corrupt_record_error_names_tree_and_key():
    exc = errors.CorruptRecordError("repo-context-file", "repo/x/file/a.py", "bad tag")
    assert (exc.tree, exc.key, exc.reason) == ("repo-context-file", "repo/x/file/a.py", "bad tag")
    assert str(exc).startswith(
        "corrupt record 'repo/x/file/a.py' in tree repo-context-file: bad tag; ")
    assert "repoctx check" in str(exc) and "repoctx repair" in str(exc)
