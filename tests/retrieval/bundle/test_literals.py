"""Quoted text looked up literally: the definitions that print it, library code only."""

from __future__ import annotations

import pytest

from repoctx import open_store
from repoctx.contextpull import export_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import Workspace, export_extras
from repoctx.retrieval.bundle.context import context
from repoctx.retrieval.bundle.expansion import expand, gather
from repoctx.retrieval.bundle.literals import QUOTED, literal_definitions
from repoctx.retrieval.bundle.rank import Candidate
from tests.retrieval import context_repo

ERRORS = '''"""Argument checks."""


def check_group(flags):
    """Refuse a group of exclusive flags used together."""
    if len(flags) > 1:
        raise ValueError("if any flags in the group %s, none of the others can be" % flags)
    return flags


class Parser:
    """Parses arguments."""

    default_messages = {"empty": "the argument list was left empty"}

    def parse(self, args):
        """The arguments, checked."""
        if not args:
            raise ValueError(
                "nothing at all to parse in "
                "the given arguments")
        return check_group(args)


LIMIT_MESSAGE = "too many open carts at once"


def explain():
    """Explain the rules.

    Only prose here: the ledger was closed early today.
    """
    # and a comment: the ledger was closed early today
    return None
'''

COMMON = "\n\n".join(f'def helper{i}():\n    return "common words said here"\n'
                     for i in range(8))

FILES = {"shop/__init__.py": "", "shop/errors.py": ERRORS, "shop/common.py": COMMON,
         "tests/test_errors.py": 'def test_group():\n    assert "if any flags in the group"'
                                 ' and "none of the others can be"\n',
         "README.md": "# Shop\n\nIt says: if any flags in the group, none of the others can"
                      " be.\n"}


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("quoted") / "repo"
    context_repo.write(root, FILES)
    store = open_store(root, repo_id="quoted", replica_id="r1")
    reconcile_pass(store, root, PassOptions(workers=1))
    export = store.path / "contextpull.sqlite"
    export_store(store, root, export, finalize=export_extras(store))  # the search index
    ws = Workspace(store, root.resolve(), export)
    yield ws
    ws.close()


def _found(ws, task):
    return [(c.path, c.symbol, c.lines) for c in literal_definitions(ws, task)]


def test_a_quoted_error_message_leads_to_the_function_raising_it(ws):
    task = ("Exclusive flags: the parser fails with\n"
            "ValueError: if any flags in the group '--a --b', none of the others can be")
    assert _found(ws, task) == [("shop/errors.py", "shop.errors.check_group", None)]
    (cand,) = literal_definitions(ws, task)
    assert cand.reason.startswith(QUOTED + ':"if any flags in the group')


def test_a_message_split_over_string_literals_and_a_class_attribute_are_found(ws):
    task = 'It says "nothing at all to parse in the given arguments" or "the argument list was'
    task += ' left empty"'
    assert _found(ws, task) == [("shop/errors.py", "shop.errors.Parser.parse", None),
                                ("shop/errors.py", "shop.errors.Parser", None)]


def test_module_level_text_stands_for_its_line(ws):
    line = ERRORS.splitlines().index('LIMIT_MESSAGE = "too many open carts at once"') + 1
    assert _found(ws, 'I get "too many open carts at once"') in (
        [("shop/errors.py", "shop.errors.LIMIT_MESSAGE", None)],
        [("shop/errors.py", None, (line, line))])


def test_text_found_in_many_places_or_nowhere_leads_nowhere(ws):
    assert _found(ws, 'it prints "common words said here"') == []
    assert _found(ws, 'it prints "words nobody ever wrote down"') == []
    assert _found(ws, "no quotes at all in this task") == []
    assert _found(ws, 'it says "the ledger was closed early today"') == []  # prose only


def test_a_formatted_value_at_an_end_of_the_run_is_trimmed(ws):
    task = 'it says "nothing at all to parse in the given arguments Bob"'
    assert [s for _, s, _ in _found(ws, task)] == ["shop.errors.Parser.parse"]


def test_quoted_definitions_follow_search_first_hit_and_lead_their_file(ws):
    task = 'Error: "nothing at all to parse in the given arguments"'
    base = [Candidate("README.md", None, "search"),
            Candidate("shop/errors.py", "shop.errors.check_group", "search")]
    got = expand(ws, task, base, top=4)
    assert got[0] == base[0]
    assert got[1].symbol == "shop.errors.Parser.parse" and got[1].reason.startswith(QUOTED)
    targets = gather(got, top=4)
    errors = next(t for t in targets if t.path == "shop/errors.py")
    assert errors.symbols[0] == "shop.errors.Parser.parse"


def test_the_bundle_delivers_the_raising_definition_whole(ws):
    task = ("Exclusive flags\n\nValueError: if any flags in the group '--a --b', none of the"
            " others can be")
    bundle = context(ws, task, responseBudgetTokens=4000)
    units = [(e["path"], u) for e in bundle["entries"] for u in e["units"]]
    lines = ERRORS.splitlines()
    start = lines.index("def check_group(flags):") + 1
    sent = [u for p, u in units if p == "shop/errors.py" and "text" in u]
    assert any(u["lines"][0] <= start and u["lines"][1] >= start + 4 for u in sent)
    assert bundle["responseTokens"] <= 4000
