"""Pasted tasks reduced to bounded queries: signals, boilerplate, index statistics."""

import time

import pytest

from repoctx.errors import ToolError
from repoctx.retrieval.query import MAX_QUERY_CHARS, MAX_QUERY_TERMS, MAX_TEXT_CHARS
from repoctx.retrieval.search.task_text import (
    NO_STATS,
    IndexStats,
    check_text,
    fits_as_typed,
    query_terms,
    quoted_phrases,
    ranked_terms,
    reduce_query,
    signals,
    strip_boilerplate,
    task_names,
    term_weights,
)
from repoctx.retrieval.tuning import TUNING

FRAME, PROSE, TITLE = TUNING.text.frame_place, TUNING.text.prose_place, TUNING.text.title_place
REDUCED_TERMS = TUNING.text.reduced_terms

# A repository of 1,000 sections where "model", "field" and "get" are everywhere.
SECTIONS = {"model": 400, "field": 300, "get": 500, "init": 600, "query": 90, "order": 40,
            "compiler": 12, "napoleon": 3, "include": 50, "doc": 60, "with": 700,
            "crash": 5, "expression": 20, "descending": 4, "app": 300, "sql": 80,
            "poly": 200}
DEFINITIONS = {"get": 90, "__init__": 400, "app": 12, "get_order_by": 2, "SQLCompiler": 1,
               "napoleon_include_init_with_doc": 1, "as_sql": 5, "Model": 3, "Poly": 2}
STATS = IndexStats(1000, lambda w: SECTIONS.get(w, 0), lambda n: DEFINITIONS.get(n, 0))

TEMPLATE = """<!--
  Thanks for reporting a bug! Please fill in the template below. The model field get
  init app sections are hidden when the issue is rendered.
-->
- [x] I searched the existing issues for model field get init app
- [ ] I included a minimal example

| package | version |
| ------- | ------- |
| model   | 1.2     |

See https://example.org/model/field/get for the docs.
"""


def test_boilerplate_is_dropped():
    left = strip_boilerplate(TEMPLATE + "the real words")
    assert "Thanks" not in left and "searched" not in left and "minimal" not in left
    assert "package" not in left and "example.org" not in left and "the real words" in left
    shots = ('<img width="148" alt="Screen Shot 2020-05-30" src="https://example.org/a.png">'
             " renders ![screenshot](https://example.org/b.png) wrongly")
    assert strip_boilerplate(shots).split() == ["renders", "wrongly"]


def test_signals_weigh_title_frames_and_errors_above_prose():
    text = ("Ordering crashes on descending expression\nSome prose about a model.\n"
            'Traceback:\n  File "/site-packages/pkg/sql/compiler.py", line 12, in '
            "get_order_by\nFieldError: Cannot resolve expression\n")
    found = signals(text)
    assert found["Ordering"] == TITLE and found["get_order_by"] == FRAME
    assert found["compiler"] >= 2.0 and found["FieldError"] > PROSE
    assert found["prose"] == PROSE


def test_a_name_buried_under_64k_of_boilerplate_drives_the_query():
    text = ("Bug in the docs build\n" + TEMPLATE * 150 + "filler model field get " * 1500
            + "\nSetting `napoleon_include_init_with_doc` has no effect on the output.\n")
    assert len(text) > 64_000
    query = reduce_query(text, STATS)
    assert "napoleon_include_init_with_doc" in query.split()
    assert len(query) <= MAX_QUERY_CHARS and len(query.split()) <= MAX_QUERY_TERMS


def test_words_common_in_this_index_rank_after_rare_ones():
    best = ranked_terms("model field get with the compiler crash " * 40, STATS)
    assert best.index("compiler") < best.index("model")
    assert best.index("crash") < best.index("field")
    assert "the" not in best and "filler" not in ranked_terms("filler compiler", STATS)


def test_short_text_is_taken_as_typed_and_long_text_is_reduced():
    assert fits_as_typed("add item to cart")
    assert not fits_as_typed("word " * (MAX_QUERY_TERMS + 1))
    terms = query_terms("word " * 5000 + " compiler", "query", lambda: STATS)
    assert "compiler" in terms.words
    typed = query_terms("add item", "query", lambda: pytest.fail("no stats needed"))
    assert typed.words == ("add", "item")


def test_a_long_text_keeps_its_best_terms_only():
    words = " ".join(f"w{i}x" for i in range(60))
    stats = IndexStats(1000, lambda w: 3 if w.startswith("w") else 0)
    terms = query_terms("`w59x` " + words, "query", lambda: stats)
    assert len(terms.raw) == REDUCED_TERMS and "w59x" in terms.raw


def test_without_an_index_the_place_and_repeats_decide():
    query = reduce_query("lorem ipsum " * 300 + "\nthe checkout total is wrong", NO_STATS)
    assert {"checkout", "total", "wrong"} <= set(query.split())


def test_names_are_rare_in_the_index_and_dunders_only_qualified():
    text = ("`get_order_by` crashes; `SQLCompiler.as_sql` and `Model.__init__` too.\n"
            "Calling `get` or `__init__` or `app` is fine.")
    names = task_names(text, STATS)
    assert "get_order_by" in names and "SQLCompiler.as_sql" in names
    assert "Model.__init__" in names
    assert "get" not in names and "__init__" not in names and "app" not in names


def test_a_common_class_name_counts_when_the_task_builds_an_instance_of_it():
    assert "Poly" not in task_names("The `Poly` docs say it is sparse.", STATS)
    assert "Poly" in task_names("Wrong product:\n```\n>>> x*Poly(x)\nx*Poly(x, x)\n```", STATS)


def test_a_text_over_the_maximum_is_a_tool_error_naming_the_argument():
    assert check_text("x" * MAX_TEXT_CHARS, "task") == "x" * MAX_TEXT_CHARS
    with pytest.raises(ToolError, match=r"task: at most 100,000 characters \(got 100,001\)"):
        check_text("x" * (MAX_TEXT_CHARS + 1), "task")
    with pytest.raises(ToolError, match="queries\\[2\\]: must be a string"):
        check_text(7, "queries[2]")


@pytest.mark.parametrize("hostile", [
    "a/" * (MAX_TEXT_CHARS // 2), "a." * (MAX_TEXT_CHARS // 2), "<!--" * (MAX_TEXT_CHARS // 4),
    "`" * MAX_TEXT_CHARS, "A" * MAX_TEXT_CHARS, "Error: " * (MAX_TEXT_CHARS // 7),
    'File "' * (MAX_TEXT_CHARS // 6), "x_" * (MAX_TEXT_CHARS // 2), "- [ ] |" * 14_000,
])
def test_hostile_texts_reduce_in_bounded_time(hostile):
    start = time.perf_counter()
    query = reduce_query(hostile[:MAX_TEXT_CHARS], STATS)
    assert len(query) <= MAX_QUERY_CHARS
    assert time.perf_counter() - start < 5.0  # about 0.1 s each; 5x+ margin under load


def test_term_weights_score_rare_code_over_common_prose_without_boilerplate():
    weights = term_weights(TEMPLATE + "`get_order_by` crashes on a descending model field",
                           STATS)
    assert weights["get_order_by"] > weights["descending"] > weights.get("model", 0.0)
    assert "Thanks" not in weights and "package" not in weights  # boilerplate is out


def test_title_words_may_name_files_by_their_stems():
    from repoctx.retrieval.search.task_text import title_words

    text = "<!-- template -->\ninspectdb should generate related_name on the same links\nbody"
    assert title_words(text) == ["inspectdb", "generate", "related_name", "links"]


def test_task_paths_put_the_most_mentioned_then_the_deepest_frame_first():
    from repoctx.retrieval.search.task_text import task_paths

    text = ('Traceback:\n  File "/venv/pkg/views.py", line 3, in get\n'
            '  File "/venv/pkg/sql/compiler.py", line 9, in as_sql\n'
            "See pkg.sql.query.Query.build too, and pkg/views.py again.\n"
            "<!-- ignore hidden/thing.py -->")
    found = task_paths(text)
    assert found == ["pkg/views.py", "pkg/sql/query", "venv/pkg/sql/compiler.py",
                     "venv/pkg/views.py"]  # a dotted name is read up to its class


def test_index_stats_are_built_once_per_opened_export(tmp_path):
    from repoctx.retrieval.search.state import forget_state, search_state
    from repoctx.retrieval.search.task_text import index_stats
    from tests.retrieval.search_repo import indexed_export

    export = indexed_export(tmp_path)
    forget_state(export)
    first = index_stats(search_state(export))
    assert index_stats(search_state(export)) is first and first.sections > 0
    assert first.definitions("ShoppingCart") == first.definitions("shoppingcart") > 0
    forget_state(export)  # reopened: the export may have been rewritten
    again = index_stats(search_state(export))
    assert again is not first and again.definitions("ShoppingCart") > 0


def test_quoted_phrases_are_the_plain_word_runs_of_quotes_errors_and_log_lines():
    task = ("argparse says \"if any flags in the group '--foo', none of the others can be\"\n"
            "ValueError: could not convert string to float: 'abc'\n"
            "WARNING: duplicate object description of x, use noindex\n"
            "see `the group is empty again` and \"two words\" and 'is not a'\n")
    assert quoted_phrases(task) == [
        "could not convert string to float", "duplicate object description of x",
        "if any flags in the group", "none of the others can be",
        "the group is empty again"]


def test_quoted_phrases_are_bounded():
    task = " ".join(f'"alpha beta gamma{chr(97 + i)} delta"' for i in range(20))
    assert len(quoted_phrases(task)) == TUNING.text.max_phrases
