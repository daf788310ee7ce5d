"""extract/links: what a file's text says about other modules, and its stored form."""

from repoctx.extract import Links, bindings_of, links_from_wire, links_of

PY = """\
import os, os.path
from . import views, helpers as h
from ..core.models import (Model,
    Field as F)
from pkg.sub import thing  # a comment
def run():
    import json
    return thing
class Box:
    pass
"""


def test_python_imports_are_the_statements_in_source_order_as_written():
    found = links_of("app/web/routes.py", PY)
    assert found.imports == (
        ("os", None), ("os.path", None), (".", ("views", "helpers")),
        ("..core.models", ("Model", "Field")), ("pkg.sub", ("thing",)), ("json", None))
    assert not found.reexports


def test_python_bindings_are_bindings_of_sorted():
    found = links_of("app/web/routes.py", PY)
    assert dict(found.bindings) == bindings_of("app/web/routes.py", PY)
    assert list(found.bindings) == sorted(found.bindings)
    assert ("Box", "app.web.routes.Box") in found.bindings
    assert ("h", "app.web.helpers") in found.bindings


def test_other_languages_keep_their_specifiers_and_reexports():
    text = "import { a } from './a';\nexport * from './b';\n"
    found = links_of("src/index.ts", text)
    assert found.imports == (("./a", None), ("./b", None))
    assert found.bindings == () and found.reexports
    assert links_of("notes.md", "# title\n") == Links()


def test_the_wire_round_trips_and_a_value_of_another_shape_reads_as_none():
    found = links_of("app/web/routes.py", PY)
    assert links_from_wire(found.wire()) == found
    assert links_from_wire(Links().wire()) == Links()
    assert links_from_wire(5) is None and links_from_wire(("a", "b")) is None
