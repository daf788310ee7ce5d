"""Path roles: tests, vendored code, release notes, catalogues and documentation recognised by
their place."""

import subprocess
import sys

from repoctx.retrieval.path_roles import (
    is_changelog,
    is_documentation,
    is_secondary,
    is_test_path,
    is_vendored,
)


def test_test_files_are_recognised_by_folder_and_name():
    assert is_test_path("tests/queries/models.py")
    assert is_test_path("pkg/test_cart.py") and is_test_path("pkg/cart_tests.py")
    assert not is_test_path("django/test/testcases.py")  # the test framework is library code
    assert not is_test_path("shop/cart.py")


def test_vendored_code_and_changelogs_are_recognised():
    assert is_vendored("admin/static/js/vendor/jquery/jquery.js")
    assert is_vendored("static/app.min.js") and not is_vendored("shop/cart.py")
    assert is_changelog("docs/releases/4.2.txt") and is_changelog("CHANGELOG.md")
    assert not is_changelog("docs/topics/db/queries.txt")


def test_documentation_and_its_examples_are_recognised_by_their_folder():
    assert is_documentation("doc/usage/extensions/example_google.py")
    assert is_documentation("examples/advanced/relativity.py")
    assert is_documentation("Docs/conf.py")
    assert not is_documentation("pkg/examples.py") and not is_documentation("docs")
    assert not is_documentation("shop/cart.py")


def test_secondary_documents_are_those_with_a_query_independent_penalty():
    assert is_secondary("tests/test_cart.py") and is_secondary("docs/releases/1.0.txt")
    assert is_secondary("x/vendor/y.js") and is_secondary("locale/de/django.po")
    assert not is_secondary("shop/cart.py") and not is_secondary("docs/guide.md")


def test_the_index_path_does_not_load_the_ranking_constants():
    # the search tables read these predicates; the ranking's weights must stay out of what
    # builds an index, so that tuning them never invalidates one
    code = ("import sys; import repoctx.retrieval.index.tables; "
            "print('repoctx.retrieval.tuning' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
