"""Document priors: tests, vendored code, release notes, catalogues and prose weigh less."""

from repoctx.retrieval.priors import (
    document_prior,
    is_changelog,
    is_secondary,
    is_test_path,
    is_vendored,
)
from repoctx.retrieval.tuning import TUNING

CATALOGUE_PRIOR = TUNING.documents.catalogue_prior
CHANGELOG_PRIOR = TUNING.documents.changelog_prior
PROSE_PRIOR = TUNING.documents.prose_prior
TEST_ASKED_PRIOR = TUNING.documents.test_asked_prior
TEST_PRIOR = TUNING.documents.test_prior
VENDOR_PRIOR = TUNING.documents.vendor_prior


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


def test_tests_weigh_less_and_a_little_more_when_the_query_asks_for_tests():
    assert document_prior("tests/test_cart.py", {"cart"}) == TEST_PRIOR
    assert document_prior("tests/test_cart.py", {"cart", "tests"}) == TEST_ASKED_PRIOR
    assert TEST_PRIOR < TEST_ASKED_PRIOR < 1.0
    assert document_prior("shop/cart.py", {"cart"}) == 1.0


def test_other_priors_and_their_exemptions():
    assert document_prior("locale/fr/LC_MESSAGES/django.po", set()) == CATALOGUE_PRIOR
    assert document_prior("js/vendor/x.js", set()) == VENDOR_PRIOR
    assert document_prior("docs/releases/4.2.txt", {"cache"}) == CHANGELOG_PRIOR
    assert document_prior("docs/releases/4.2.txt", {"cache", "release"}) != CHANGELOG_PRIOR
    assert document_prior("docs/guide.md", {"cart"}, "markdown") == PROSE_PRIOR
    assert document_prior("docs/guide.md", {"cart", "guide"}, "markdown") == 1.0
    assert document_prior("shop/cart.py", {"cart"}, "code") == 1.0


def test_secondary_documents_are_those_with_a_query_independent_penalty():
    assert is_secondary("tests/test_cart.py") and is_secondary("docs/releases/1.0.txt")
    assert is_secondary("x/vendor/y.js") and is_secondary("locale/de/django.po")
    assert not is_secondary("shop/cart.py") and not is_secondary("docs/guide.md")
