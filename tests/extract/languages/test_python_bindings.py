"""extract/languages/python_bindings: what a Python file's names stand for, and the
qualified spellings the Python extractor gives each reference (``Symbol.targets``)."""

import pytest

from repoctx.extract import bindings_of
from repoctx.extract.languages.python import extract_python
from repoctx.extract.languages.python_bindings import absolute_module, package_of, spelling

SOURCE = '''\
import os.path
import numpy as np
from . import helpers
from .helpers import url_for as link
from ..shared import Base
from werkzeug.utils import send_file as _send_file
from k import *


def send_file(path):
    return _send_file(path)


class App(Base):
    def route(self, x: np.ndarray) -> "Base":
        self.url_for(x)
        helpers.url_for(x)
        link(x)
        os.path.join(x)
        App.build()
        make().bar()
        return cls.create()

    @classmethod
    def build(cls):
        return send_file("x")
'''


def targets(path=("pkg/sub/app.py"), source=SOURCE):
    return {s.fq_name: s.targets for s in extract_python(path, source)}


def test_imports_aliases_and_relative_modules_qualify_references():
    got = targets()
    assert got["pkg.sub.app.send_file"] == (("send_file", "werkzeug.utils.send_file"),)
    assert got["pkg.sub.app.App"] == (("Base", "pkg.shared.Base"),)
    assert got["pkg.sub.app.App.route"] == (
        ("Base", "pkg.shared.Base"),                # an annotation, relative two levels up
        ("build", "pkg.sub.app.App.build"),         # C.n with C a class of the file
        ("create", "pkg.sub.app.App.create"),       # cls.n in a method
        ("join", "os.path.join"),                   # a module attribute of `import os.path`
        ("ndarray", "numpy.ndarray"),               # `import numpy as np`
        ("url_for", "pkg.sub.app.App.url_for"),     # self.n
        ("url_for", "pkg.sub.helpers.url_for"),     # `from . import helpers`; an alias
    )
    assert got["pkg.sub.app.App.build"] == (("send_file", "pkg.sub.app.send_file"),)


def test_refs_are_unchanged_and_unknown_heads_have_no_spelling():
    route = next(s for s in extract_python("pkg/sub/app.py", SOURCE)
                 if s.fq_name == "pkg.sub.app.App.route")
    assert route.refs == ("Base", "bar", "build", "create", "join", "link", "make",
                          "ndarray", "url_for")
    assert not any(name in {"bar", "make"} for name, _ in route.targets)


def test_a_later_binding_wins_and_an_init_is_its_own_package():
    text = "from a import x\n\ndef x():\n    pass\n\ndef f():\n    return x()\n"
    assert targets("pkg/m.py", text)["pkg.m.f"] == (("x", "pkg.m.x"),)
    init = bindings_of("pkg/__init__.py", "from .helpers import url_for\nfrom . import app\n")
    assert init == {"url_for": "pkg.helpers.url_for", "app": "pkg.app"}


@pytest.mark.parametrize("path, written, want", [
    ("pkg/sub/x.py", ".", "pkg.sub"),
    ("pkg/sub/x.py", "..m", "pkg.m"),
    ("pkg/sub/__init__.py", ".m", "pkg.sub.m"),
    ("pkg/x.py", "...m", None),  # above the top package
    ("x.py", ".", None),
    ("pkg/x.py", "abs.mod", "abs.mod"),
])
def test_absolute_module(path, written, want):
    assert absolute_module(path, written) == want


def test_package_of_and_spelling_edge_cases():
    assert package_of("src/pkg/__init__.py") == "pkg" and package_of("pkg/m.py") == "pkg"
    assert spelling("self.x", {}, None) is None  # self outside a method
    assert spelling("a.b", {"a": "m.a"}, None) == "m.a.b"
    assert spelling("a", {}, "C") is None


def test_malformed_source_never_raises():
    assert bindings_of("pkg/m.py", "from . import (\nimport \x00 as\n") == {}
    broken = extract_python("pkg/m.py", "from .. import\ndef f(:\n    g()\n\udcff")
    assert all(isinstance(s.targets, tuple) for s in broken)
