"""An issue template's boilerplate taken out of a pasted task; through search on a real index."""

import pytest

from repoctx.retrieval.search.issue_templates import (
    Boilerplate,
    boilerplate,
    is_issue_template,
    without_boilerplate,
)
from repoctx.retrieval.search.state import forget_state, search_state
from repoctx.retrieval.search.task_text import pasted_task
from tests.retrieval.search_repo import index_repo, write_repo

TEMPLATE = """**Describe the bug**
A clear and concise description of what the bug is.

**To Reproduce**
Steps to reproduce the behavior:

**Expected behavior**
A clear and concise description of what you expected to happen.

**Environment info**
- OS: [e.g. Unix/Linux/Mac/Win/other with version]
- Python version: [e.g. 3.7.1]
- Shop extensions:  [e.g. shop.ext.discounts]
"""
FORM = """name: Bug report
body:
  - type: textarea
    attributes:
      label: Bug summary
      description: Describe the bug in a few sentences.
  - type: input
    attributes:
      label: "Operating system"
"""
TASK = """Refund window ignores weekends
**Describe the bug**
The refund window counts Saturdays.

**To Reproduce**
Steps to reproduce the behavior:
call refund_window on a Friday order

**Expected behavior**
A clear and concise description of what you expected to happen.

**Environment info**
- OS: Mac
- Python version: 3.8.3
- Shop extensions: shop.ext.discounts
"""


def test_template_paths_are_the_platforms_conventions():
    assert is_issue_template(".github/ISSUE_TEMPLATE/bug_report.md")
    assert is_issue_template(".github/ISSUE_TEMPLATE/bug-report.yml")
    assert is_issue_template(".github/ISSUE_TEMPLATE.md")
    assert is_issue_template(".gitlab/issue_templates/Bug.md")
    assert is_issue_template("docs/issue_template.md")
    assert not is_issue_template(".github/ISSUE_TEMPLATE/config.yml")
    assert not is_issue_template(".github/PULL_REQUEST_TEMPLATE.md")
    assert not is_issue_template("shop/issue_template.py")


def test_a_task_loses_the_template_lines_and_keeps_what_the_reporter_wrote():
    known = boilerplate([(".github/ISSUE_TEMPLATE/bug_report.md", TEMPLATE)])
    lines = without_boilerplate(TASK, known).splitlines()
    kept = [line.strip() for line in lines if line.strip()]
    assert kept == ["Refund window ignores weekends", "The refund window counts Saturdays.",
                    "call refund_window on a Friday order", "Mac", "3.8.3",
                    "shop.ext.discounts"]


def test_lines_compare_by_their_words_alone():
    known = boilerplate([("ISSUE_TEMPLATE.md", "### Describe the bug\n")])
    assert without_boilerplate("__describe THE bug:__\nfoo fails", known).split() == [
        "foo", "fails"]


def test_an_issue_form_gives_its_labels_as_headings():
    known = boilerplate([(".github/ISSUE_TEMPLATE/bug.yml", FORM)])
    task = "### Bug summary\n\nfoo() fails\n\n### Operating system\n\nLinux\n"
    assert without_boilerplate(task, known).split() == ["foo()", "fails", "Linux"]
    assert "describe the bug in a few sentences" not in known.lines


def test_a_sentence_with_a_colon_is_no_label():
    known = boilerplate([("ISSUE_TEMPLATE.md", "When I call the function it fails: why\n")])
    assert not known.labels


def test_without_templates_or_with_nothing_left_the_task_stays_as_it_was():
    assert without_boilerplate(TASK, Boilerplate()) == TASK
    known = boilerplate([("ISSUE_TEMPLATE.md", TEMPLATE)])
    only = "**Describe the bug**\nSteps to reproduce the behavior:\n"
    assert without_boilerplate(only, known) == only


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    base = tmp_path_factory.mktemp("templates")
    write_repo(base / "repo")
    template = base / "repo" / ".github" / "ISSUE_TEMPLATE" / "bug_report.md"
    template.parent.mkdir(parents=True)
    template.write_text(TEMPLATE, encoding="utf-8")
    workspace = index_repo(base / "repo", base / "store", base / "export.sqlite")
    yield workspace
    forget_state(workspace.export)
    workspace.close()


def test_the_export_gives_its_templates_boilerplate(ws):
    known = search_state(ws.export).issue_template()
    assert "a clear and concise description of what the bug is" in known.lines
    assert {"os", "python version"} <= known.labels


def test_a_pasted_task_searched_loses_the_boilerplate_of_the_indexed_templates(ws):
    task = TASK + "\n" + "The window should skip weekends and holidays alike. " * 40
    cleaned = pasted_task(task, lambda: search_state(ws.export))
    assert "clear and concise" not in cleaned and "Describe the bug" not in cleaned
    assert "The refund window counts Saturdays." in cleaned and "Mac" in cleaned
    typed = "Describe the bug"  # short enough to search as typed: left as it is
    assert pasted_task(typed, lambda: search_state(ws.export)) == typed
