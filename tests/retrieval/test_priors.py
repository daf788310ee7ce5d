"""Document priors: tests, vendored code, release notes, catalogues and prose weigh less."""

from repoctx.retrieval.priors import document_prior, is_data
from repoctx.retrieval.tuning import TUNING

CATALOGUE_PRIOR = TUNING.documents.catalogue_prior
CHANGELOG_PRIOR = TUNING.documents.changelog_prior
PROSE_PRIOR = TUNING.documents.prose_prior
TEST_ASKED_PRIOR = TUNING.documents.test_asked_prior
TEST_PRIOR = TUNING.documents.test_prior
VENDOR_PRIOR = TUNING.documents.vendor_prior


def test_tests_weigh_less_and_a_little_more_when_the_query_asks_for_tests():
    assert document_prior("tests/test_cart.py", {"cart"}) == TEST_PRIOR
    assert document_prior("tests/test_cart.py", {"cart", "tests"}) == TEST_ASKED_PRIOR
    assert TEST_PRIOR < TEST_ASKED_PRIOR < 1.0
    assert document_prior("shop/cart.py", {"cart"}) == 1.0


def test_other_priors_and_their_exemptions():
    assert document_prior("locale/fr/LC_MESSAGES/django.po", set()) == CATALOGUE_PRIOR
    assert document_prior("js/vendor/x.js", set()) == VENDOR_PRIOR
    assert document_prior("docs/releases/4.2.txt", {"cache"}) == CHANGELOG_PRIOR
    # asked about releases, release notes weigh as the prose they are
    assert document_prior("docs/releases/4.2.txt", {"cache", "release"}) == PROSE_PRIOR
    # a change log that is not prose too: only its own prior can weigh it down
    assert document_prior("CHANGES", {"cache"}) == CHANGELOG_PRIOR
    assert document_prior("CHANGES", {"cache", "release"}) == 1.0
    assert document_prior("docs/guide.md", {"cart"}, "markdown") == PROSE_PRIOR
    assert document_prior("docs/guide.md", {"cart", "guide"}, "markdown") == 1.0
    assert document_prior("shop/cart.py", {"cart"}, "code") == 1.0


def test_prose_is_known_by_language_and_place_whatever_the_export_calls_it():
    # ContextPull files reStructuredText as "other"; an example script is code
    assert document_prior("guide/intro.rst", {"cart"}, "other") == PROSE_PRIOR
    assert document_prior("doc/usage/example_google.py", {"cart"}, "code") == PROSE_PRIOR
    assert document_prior("examples/checkout.py", {"cart"}, "code") == PROSE_PRIOR
    assert document_prior("guide/intro.rst", {"cart", "docs"}, "other") == 1.0
    assert document_prior("shop/config.yaml", {"cart"}, "other") == 1.0


def test_data_is_what_is_neither_code_nor_prose():
    assert is_data("shop/config.yaml", "other") and is_data("package-lock.json", "json")
    assert not is_data("shop/cart.py", "code") and not is_data("guide/intro.rst", "other")
    assert not is_data("README.md", "markdown") and not is_data("docs/conf.yaml", "other")
    assert not is_data("shop/cart.py", None)  # a path-only candidate: its kind is unknown
