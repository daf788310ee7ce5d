"""retrieval/bundle/definition_slices: a large class goes as its header and matching members."""

from __future__ import annotations

from dataclasses import replace

import pytest

from repoctx import open_store
from repoctx.contextpull import export_store
from repoctx.reconcile import PassOptions, reconcile_pass
from repoctx.retrieval import Workspace
from repoctx.retrieval.bundle import units
from repoctx.retrieval.bundle.definition_slices import (
    DOC_SUMMARY,
    TaskTerms,
    docstring_rest,
    import_block,
    rank_definitions,
    task_terms,
)
from repoctx.retrieval.bundle.expansion import Target
from repoctx.retrieval.bundle.receipts import SLICE
from repoctx.retrieval.bundle.units import load, slice_units
from repoctx.retrieval.tuning import TUNING
from tests.retrieval.context_repo import write

LARGE_CLASS_LINES = TUNING.bundle.large_class_lines
SLICED = replace(TUNING, bundle=replace(TUNING.bundle, cheap_max=0))
"""No file is cheap enough to go whole: every one is sliced."""


def _method(i: int) -> str:
    return f"    def step{i}(self, value):\n        return value + {i}\n\n"


BIG = ('class Engine:\n    """Runs the steps."""\n\n    limit = 3\n\n'
       + "".join(_method(i) for i in range(LARGE_CLASS_LINES // 3 + 5))
       + "    @property\n    def throttle_rate(self):\n        return self.limit * 2\n")
HELPERS = ("\n\ndef helper(value):\n    return value\n\n\n"
           "def drain_queue(pending):\n    while pending:\n        pending.pop()  # backlog\n")


def _indexed(tmp_path_factory, name: str, module: str):  # noqa: ANN202
    """A one-module package ``pkg/<name>.py`` indexed and exported: its workspace."""
    root = tmp_path_factory.mktemp(name) / "repo"
    write(root, {"pkg/__init__.py": "", f"pkg/{name}.py": module})
    store = open_store(root, repo_id=name, replica_id="r1")
    reconcile_pass(store, root, PassOptions(workers=1))
    export_store(store, root, store.path / "contextpull.sqlite")
    return Workspace(store, root.resolve(), store.path / "contextpull.sqlite")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    workspace = _indexed(tmp_path_factory, "engine", BIG + HELPERS)
    yield workspace
    workspace.close()


def test_a_large_class_is_its_header_and_the_member_the_task_names(ws):
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.Engine",), (), ("t",)))
    units = slice_units(src, budget=2_000, words=task_terms("throttle_rate is doubled"))
    assert [u.kind for u in units] == [SLICE, SLICE]
    header, member = (u.body for u in units)
    assert header["symbol"] == "pkg.engine.Engine"
    assert header["text"].startswith("class Engine:") and "limit = 3" in header["text"]
    assert "def step0" not in header["text"]  # the header stops before the first member
    assert member["symbol"] == "pkg.engine.Engine.throttle_rate"
    assert member["text"].lstrip().startswith("@property")  # whole, decorator included
    assert member["text"].rstrip().endswith("return self.limit * 2")
    assert units[0].receipt != units[1].receipt


def test_without_matching_members_the_header_alone_stands_for_the_class(ws):
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.Engine",), (), ("t",)))
    units = slice_units(src, budget=2_000, words=task_terms("nothing relevant here"))
    assert len(units) == 1 and units[0].body["lines"][0] == 1
    assert units[0].body["lines"][1] < 10


@pytest.fixture
def sliced(ws, monkeypatch):
    """Files of any size are sliced (the test file is small enough to go whole)."""
    monkeypatch.setattr(ws, "tuning", SLICED)


def _keys(units):
    return [u.body["symbol"] for u in units]


def test_a_method_the_task_names_deep_in_a_big_class_arrives_whole(ws, sliced):
    # search hit only ``helper``; the task names a method far down a 130-line class
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.helper",), (), ("t",)))
    src.place = TUNING.bundle.rank_all_files - 1  # every definition competes, not a lead
    units = slice_units(src, budget=13_000,
                        words=task_terms("Engine.throttle_rate returns twice the limit"))
    assert "pkg.engine.Engine.throttle_rate" in _keys(units)
    member = next(u for u in units if u.body["symbol"] == "pkg.engine.Engine.throttle_rate")
    assert member.body["text"].lstrip().startswith("@property")
    assert member.body["text"].rstrip().endswith("return self.limit * 2")
    assert _keys(units)[0] != "pkg.engine.Engine.step0"


def test_a_marginal_file_carries_its_hits_only(ws, sliced):
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.helper",), (), ("t",)))
    units = slice_units(src, budget=13_000,
                        words=task_terms("Engine.throttle_rate returns twice the limit"))
    assert _keys(units) == ["pkg.engine.helper"]


def test_more_budget_lets_a_first_file_add_its_best_scoring_definitions(ws, sliced):
    task = "the pending backlog is never emptied"
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.helper",), (), ("t",)))
    src.place = TUNING.bundle.rank_all_files - 1  # every definition competes, not a lead
    assert _keys(slice_units(src, budget=13_000, words=task_terms(task))) == [
        "pkg.engine.helper"]
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.helper",), (), ("t",)))
    src.place = TUNING.bundle.rank_all_files - 1  # every definition competes, not a lead
    assert "pkg.engine.drain_queue" in _keys(slice_units(src, 27_000, task_terms(task)))


def test_a_lead_file_adds_its_best_scoring_definitions_at_the_smallest_budget(ws, monkeypatch):
    monkeypatch.setattr(units, "LEAD_MAX", 200)  # too large to go whole as a lead file
    task = "the pending backlog is never emptied"
    src = load(ws, Target("pkg/engine.py", ("pkg.engine.helper",), (), ("t",)))
    src.place = 0  # the plan's first file
    assert src.lead(13_000)
    sent = [u.body.get("symbol") for u in slice_units(src, 13_000, task_terms(task))]
    assert "pkg.engine.helper" in sent and "pkg.engine.drain_queue" in sent


def test_without_task_terms_the_hits_keep_their_order(ws):
    lines = (ws.root / "pkg/engine.py").read_text().splitlines(keepends=True)
    core, extras = rank_definitions(ws, "pkg/engine.py", ws.node("pkg/engine.py").symbols,
                                    ["pkg.engine.drain_queue", "pkg.engine.helper"], lines,
                                    TaskTerms())
    assert [key for *_, key in core] == ["pkg.engine.drain_queue", "pkg.engine.helper"]
    assert extras == []


def test_the_import_block_spans_first_to_last_import_and_is_bounded():
    text = ('"""Doc."""\n\nimport os\nfrom a import (\n    b,\n    c,\n)\n\n'
            "from d import e\n\n\ndef f():\n    import g\n")
    assert import_block(text.splitlines(keepends=True)) == (3, 9)
    assert import_block(["x = 1\n"] * 50 + ["import late\n"]) is None
    assert import_block(["import m\n"] * 60) is None  # too long to ride along


QUEUE = ("class Queue:\n    def drain(self, pending):\n        while pending:\n"
         "            pending.pop()  # backlog\n\n"
         "    def peek(self, pending):\n        return pending[0]\n\n\n"
         "def drain_queue(pending):\n    while pending:\n        pending.pop()  # backlog\n")


@pytest.fixture(scope="module")
def queue_ws(tmp_path_factory):
    workspace = _indexed(tmp_path_factory, "queue", QUEUE)
    yield workspace
    workspace.close()


def _extras(ws: Workspace, path: str, hit: str, task: str) -> list[str | None]:
    """The keys of the extras ``rank_definitions`` ranks for ``task`` with one search hit."""
    lines = (ws.root / path).read_text().splitlines(keepends=True)
    return [key for *_, key in rank_definitions(ws, path, ws.node(path).symbols, [hit], lines,
                                                task_terms(task))[1]]


def test_a_method_beside_the_hit_method_competes_as_an_extra(queue_ws, monkeypatch):
    # search hit ``Queue.drain``; ``peek`` holds one task word, too few on its own
    task = "drain leaves the pending backlog"
    assert "pkg.queue.Queue.peek" in _extras(queue_ws, "pkg/queue.py", "pkg.queue.Queue.drain",
                                             task)
    no_siblings = replace(TUNING.bundle, sibling_share=0.0)
    monkeypatch.setattr(queue_ws, "tuning", replace(TUNING, bundle=no_siblings))
    assert "pkg.queue.Queue.peek" not in _extras(queue_ws, "pkg/queue.py",
                                                 "pkg.queue.Queue.drain", task)


PAGES = ("def render(page):\n    return _escape(page.body)\n\n\n"
         "def _escape(text):\n    return text.replace('<', '&lt;')\n\n\n"
         "def title_markup(title):\n    return f'<h1>{title}</h1>'  # markup, ampersand\n")


def test_what_the_first_hit_calls_competes_at_the_file_s_best_score(tmp_path_factory,
                                                                      monkeypatch):
    # the hit ``render`` holds no task word; the file's best scorer is ``title_markup``
    workspace = _indexed(tmp_path_factory, "pages", PAGES)
    task = "title markup breaks on an ampersand"
    try:
        assert _extras(workspace, "pkg/pages.py", "pkg.pages.render", task) == [
            "pkg.pages.title_markup", "pkg.pages._escape"]
        no_callees = replace(TUNING.bundle, callee_share=0.0)
        monkeypatch.setattr(workspace, "tuning", replace(TUNING, bundle=no_callees))
        assert _extras(workspace, "pkg/pages.py", "pkg.pages.render", task) == [
            "pkg.pages.title_markup"]
    finally:
        workspace.close()


GAUGE = ('class Gauge:\n    """Reads a level."""\n\n    def __init__(self, level):\n'
         '        self.level = level\n\n'
         + "".join(_method(i) for i in range(LARGE_CLASS_LINES // 3 + 5)))


def test_a_class_the_task_calls_brings_its_constructor(tmp_path_factory):
    assert task_terms("Gauge(3) fails, but GAUGE(3) and x.Gauge(3) do not").called == {"gauge"}
    workspace = _indexed(tmp_path_factory, "gauge", GAUGE)
    try:
        src = load(workspace, Target("pkg/gauge.py", ("pkg.gauge.Gauge",), (), ("t",)))
        called = slice_units(src, budget=2_000, words=task_terms("Gauge(-1) gives a reading"))
        plain = slice_units(src, budget=2_000, words=task_terms("a Gauge gives a reading"))
        assert "pkg.gauge.Gauge.__init__" in [u.body.get("symbol") for u in called]
        assert "pkg.gauge.Gauge.__init__" not in [u.body.get("symbol") for u in plain]
    finally:
        workspace.close()


def _doc(n: int) -> list[str]:
    return ['    """Counts.\n'] + [f"    >>> example({i})\n" for i in range(n)] + ['    """\n']


def test_a_long_class_docstring_is_left_out_past_its_summary():
    head = ["class Counter(Base,\n", "              metaclass=Meta):  # bases\n"]
    lines = [*head, *_doc(40), "    limit = 3\n"]
    assert docstring_rest(lines, 1, len(lines)) == (3 + DOC_SUMMARY, 3 + 40)
    short = [*head, *_doc(2 * DOC_SUMMARY - 2), "    limit = 3\n"]
    assert docstring_rest(short, 1, len(short)) is None  # too little to leave out
    one_line = ["class C:\n", '    """Counts."""\n', "    limit = 3\n"]
    assert docstring_rest(one_line, 1, 3) is None
    unclosed = ["class C:\n", *_doc(40)[:-1]]
    assert docstring_rest(unclosed, 1, len(unclosed)) is None
    undocumented = ["class C:\n", "    limit = 3\n", *_doc(40)[1:]]
    assert docstring_rest(undocumented, 1, len(undocumented)) is None


MANUAL = ("class Manual:\n" + "".join(_doc(200)) + "\n    limit = 3\n\n"
          + "".join(_method(i) for i in range(LARGE_CLASS_LINES // 3 + 5))
          + "    def rewind_pages(self):\n        return self.limit\n")


def test_a_split_class_header_skips_its_examples_so_the_named_member_fits(tmp_path_factory):
    workspace = _indexed(tmp_path_factory, "manual", MANUAL)
    try:
        src = load(workspace, Target("pkg/manual.py", ("pkg.manual.Manual",), (), ("t",)))
        units = slice_units(src, budget=2_000, words=task_terms("rewind_pages is off by one"))
        assert [u.body["symbol"] for u in units] == [
            "pkg.manual.Manual", "pkg.manual.Manual", "pkg.manual.Manual.rewind_pages"]
        summary, rest = units[0].body, units[1].body
        assert summary["lines"] == [1, 1 + DOC_SUMMARY]
        assert rest["text"].startswith('    """\n') and "limit = 3" in rest["text"]
        assert units[0].key != units[1].key
        assert not any("example(100)" in u.body["text"] for u in units)
    finally:
        workspace.close()


def test_the_terms_pattern_matches_each_weighted_word_as_a_whole_identifier():
    words = ["get", "get_order", "got", "a", "a.b", "c+d", "abc"]
    pattern = TaskTerms(dict.fromkeys(words, 1.0)).pattern
    text = "get get_order get_order_by got a a.b c+d abcd abc _get x_a"
    assert [m.group() for m in pattern.finditer(text)] == [
        "get", "get_order", "got", "a", "a.b", "c+d", "abc"]
    assert TaskTerms().pattern is None
