"""A library pasted in under its own licence header ranks below the repository's module,
on a real index; the repository's own header and its licence are told apart."""

import pytest

from repoctx.retrieval.search.hits import search
from repoctx.retrieval.search.state import forget_state, search_state
from tests.retrieval.search_repo import index_repo

OWN = ('"""Rendering of page templates.\n\n:copyright: Copyright 2020 by the Quill team.\n'
       ':license: BSD, see LICENSE for details.\n"""\n\n\n'
       "def render_template(name, context):\n"
       '    """Render the page template called name with its context."""\n'
       "    return load_template(name).render(context)\n")
PASTED = ("/*!\n * Stencil v2.1.0\n * Copyright OpenJS Foundation and other contributors\n"
          " * Released under the MIT license\n */\n"
          + "".join(f"function renderTemplate{i}(template, context) {{\n"
                    f"  // render the template with its context\n"
                    f"  return template.render(context);\n}}\n" for i in range(30)))


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    base = tmp_path_factory.mktemp("foreign")
    root = base / "repo"
    (root / "quill" / "static").mkdir(parents=True)
    (root / "LICENSE").write_text("Copyright (c) 2020 by the Quill team.\n\nBSD licence.\n")
    (root / "quill" / "render.py").write_text(OWN)
    (root / "quill" / "static" / "stencil.js").write_text(PASTED)
    workspace = index_repo(root, base / "store", base / "export.sqlite")
    yield workspace
    forget_state(workspace.export)
    workspace.close()


def test_the_licence_in_the_export_names_the_own_holder(ws):
    state = search_state(ws.export)
    assert "quill" in state.own_holders()
    paths = {"quill/render.py", "quill/static/stencil.js"}
    assert state.vendored(paths) == {"quill/static/stencil.js"}
    assert state.generated(paths) == set()


def test_a_pasted_library_ranks_below_the_own_module(ws):
    hits = search(ws, "render template context", kinds=["file"])["hits"]
    paths = [h["path"] for h in hits]
    assert paths[:2] == ["quill/render.py", "quill/static/stencil.js"]
    named = search(ws, "stencil.js render template", kinds=["file"])["hits"]
    assert named[0]["path"] == "quill/static/stencil.js"  # asked by its name: not weighed down
