"""Fuzz every tool's arguments: values drawn from each tool's input schema, mixed
with hostile ones — huge, control characters, NUL, lone surrogates, regex bombs, path
tricks, wrong types, out-of-range numbers, unknown and missing arguments. Every call must
end in an answer or a repoctx error (what the server sends as a tool error), within the
call deadline, with the process's memory bounded: 4,400 calls, about 15 s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from repoctx import deadline
from repoctx.errors import RepoctxError
from repoctx.retrieval import open_workspace
from repoctx.tools.registry import call, serialize, tools
from tests.reconcile.helpers import write

CALL_S = 3.0
"""The deadline each fuzzed call runs under (the server's default is 10 s)."""
GRACE_S = 2.0
"""How far past its deadline a call may end (the check interval, under a loaded CI)."""
RSS_GROWTH_MB = 400
EXAMPLES_PER_TOOL = 200

MEGABYTE_WORDS = "flask request context " * 48_000
HOSTILE_STRINGS = [
    "", " ", "\x00", "a\x00b", "\t\n\r\x0b\x0c", "\x1b[31mred\x1b[0m", "\x7f\x80\x9f",
    "\u202eevil", "\ufeff", "\ud800", "a\udfffb", "😀" * 20, "\u0301" * 500, "ﬁ ß İ",
    "../../etc/passwd", "/etc/passwd", "..", ".", "./", "~", "C:\\Windows\\x", "a\\b",
    "*", "**/*", "[", "[!", "[]", "?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*x",
    "a{99999999}", "a{9999999}", "(a{1000}){1000}", "((a{1000}){1000}){1000}", "(a|a)+b",
    "((a+)+)+$", "(x+x+)+y", "(?i)(?x)#", "\\", "\\p{", "(?P<n>", "[[:alpha:]",
    "NEAR(a b)", '"', '""""', "a OR b AND NOT c", "col:term", "' OR 1=1 --", "%s%n%x",
    "repo/x/mem/topic/id", "repo//mem//", "app.py#0", "docs/guide.md#999999", "#", "#-1",
    "x" * 5_000, "y" * 70_000, MEGABYTE_WORDS,
]
WRONG_TYPES = [None, 1.5, -0.0, float("inf"), True, [], {}, [None], {"a": 1}, "1", 10**30]
HOSTILE_INTS = [0, -1, -(2**63), 2**31, 2**63, 10**9, 10**30]


def hostile_for(kind: str | None) -> st.SearchStrategy[Any]:
    """Values a caller may send where ``kind`` is expected."""
    strings = st.one_of(st.sampled_from(HOSTILE_STRINGS),
                        st.text(st.characters(codec=None, categories=None), max_size=40))
    by_kind = {"string": strings, "integer": st.sampled_from(HOSTILE_INTS),
               "array": st.lists(st.one_of(strings, st.sampled_from(WRONG_TYPES)), max_size=60)}
    return st.one_of(by_kind.get(kind, strings), st.sampled_from(WRONG_TYPES))


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid under ``schema`` (the subset of JSON Schema the tools use)."""
    kind = schema.get("type")
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if kind == "string":
        low = schema.get("minLength", 0)
        return st.text(min_size=low, max_size=max(low, min(schema.get("maxLength", 60), 60)))
    if kind == "integer":
        return st.integers(schema.get("minimum"), schema.get("maximum"))
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})),
                        max_size=min(schema.get("maxItems", 5), 5))
    if kind == "object" and "properties" in schema:
        return arguments(schema)
    json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20))
    return st.dictionaries(st.text(max_size=12), json_scalars, max_size=4)


def known_values(repo_id: str, entry: str = "save") -> dict[str, list[Any]]:
    """Values that name real things of the fuzzed repository, by argument name, so calls
    get past the lookups and into the work (``entry``: a remembered decision's id)."""
    memory = f"repo/{repo_id}/mem/decisions/{entry}"
    return {
        "path": ["app.py", "pkg/util.py", "docs/guide.md", "./app.py", "pkg"],
        "symbol": ["Model", "app.Model.save", "validate", "pkg.util.helper"],
        "id": ["docs/guide.md#0", "docs/guide.md#1", "app.py#0", "README.md#0", "save"],
        "key": [memory, memory, f"repo/{repo_id}/file/app.py", f"repo/{repo_id}/mem/a/x"],
        "topic": ["decisions"],
        "query": ["save a model", "validate", "gateway timeout", "helper x"],
        "task": ["change how Model.save validates", "fix the gateway timeout"],
        "queries": [["save", "validate"]],
        "pattern": ["save", "TX-45", r"def \w+", "(a|a)+b", "a{2,5}"],
        "prefix": ["docs/", "app", ""],
        "pathPrefix": ["docs/", "app"],
        "in": [["docs"], ["*.py"], ["pkg/**"]],
        "paths": [["docs"], ["*.py"], ["app.py"]],
        "repoId": [repo_id],
        "fields": [{"body": "Saving validates, then writes."}, {"title": "Save"}],
        "kinds": [["symbol"], ["file", "section"]],
    }


EXACT = ("repoId", "fields")
"""Arguments whose only valid values are the known ones (a random one is always refused)."""


def value(schema: dict[str, Any], known: list[Any], hostile: bool) -> st.SearchStrategy[Any]:
    """A known value or a valid one; with ``hostile``, one time in four a hostile one."""
    valid = from_schema(schema) if not known else (
        st.sampled_from(known) if not schema else st.one_of(st.sampled_from(known),
                                                             from_schema(schema)))
    if not hostile:
        return valid
    return st.sampled_from(["valid", "valid", "valid", "hostile"]).flatmap(
        lambda pick: valid if pick == "valid" else hostile_for(schema.get("type")))


@st.composite
def arguments(draw: st.DrawFn, schema: dict[str, Any],
              known: dict[str, list[Any]] | None = None) -> dict[str, Any]:
    """Tool arguments: required ones (rarely dropped), optional ones at random, sometimes an
    argument the tool does not have; all valid in half the calls, else mixed with hostile."""
    known = known or {}
    required = set(schema.get("required", []))
    shape = draw(st.sampled_from(["valid"] * 10 + ["mixed"] * 8 + ["missing", "unknown"]))
    args = {name: draw(value({} if name in EXACT else sub, known.get(name, []),
                             shape != "valid")) for name, sub in schema["properties"].items()
            if (name in required and shape != "missing") or (name not in required
                                                              and draw(st.booleans()))}
    if shape == "unknown":
        args[draw(st.text(max_size=10))] = draw(hostile_for(None))
    return args


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz") / "repo"
    write(root, {
        "app.py": '"""The app."""\n\n\nclass Model:\n    """A model."""\n\n'
                  "    def save(self, force: bool = False) -> None:\n        validate(self)\n\n\n"
                  "def validate(obj):\n    raise ValueError(obj)\n",
        "pkg/__init__.py": "from .util import helper\n",
        "pkg/util.py": "def helper(x):\n    return x * 2  # aaaaaaaaaaaaaaaaaaaa\n",
        "tests/test_app.py": "from app import Model\n\n\ndef test_save():\n    Model().save()\n",
        "docs/guide.md": "# Guide\n\n## Saving\n\nCall save to persist a model.\n\n"
                         "## Errors\n\nError TX-4501 is a gateway timeout.\n",
        "README.md": "# Demo\n\nA flask-like request context demo.\n",
    })
    subprocess.run([sys.executable, "-m", "repoctx", "index", str(root)], check=True,
                   capture_output=True)
    with open_workspace(root) as workspace:
        yield workspace


@pytest.mark.parametrize("name", sorted(tools()))
def test_every_tool_answers_or_refuses_within_its_deadline(ws, name):
    schema = tools()[name].input_schema
    entry = f"save-{name}"  # one per tool: an earlier tool's fuzz may have let one lapse
    call(ws, "repocontext_remember",
         {"topic": "decisions", "id": entry, "body": "Saving always validates first."})
    baseline = rss_mb()
    outcomes: list[str] = []

    @settings(max_examples=EXAMPLES_PER_TOOL, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(args=arguments(schema, known_values(ws.store.repo_id, entry)))
    def one_call(args: dict[str, Any]) -> None:
        start = time.monotonic()
        try:
            with deadline.bounded(CALL_S, name):
                result = call(ws, name, args)
        except RepoctxError as exc:  # the server answers these as tool errors
            assert str(exc).strip(), f"{name}: an error without a message"
            outcomes.append("error")
        else:
            outcomes.append("answer")
            assert isinstance(result, dict)
            json.loads(serialize(result))  # the answer is sendable JSON
        elapsed = time.monotonic() - start
        assert elapsed < CALL_S + GRACE_S, f"{name} ran {elapsed:.1f}s"
        assert rss_mb() - baseline < RSS_GROWTH_MB, f"{name}: RSS {rss_mb():.0f} MB"

    one_call()
    assert len(outcomes) >= EXAMPLES_PER_TOOL // 2  # hypothesis ran the calls it promised
    assert outcomes.count("answer") >= len(outcomes) // 20, "the fuzz hardly reaches the tool"



WORST = [MEGABYTE_WORDS, "a{99999999}", "((a{1000}){1000}){1000}", "(a|a)+b", "\x00",
         "\ud800", "?*" * 100 + "x", "../../etc/passwd"]


@pytest.mark.parametrize("name", sorted(tools()))
def test_every_string_argument_survives_the_worst_values(ws, name):
    """Deterministically, each string argument of each tool gets each of the worst values
    (the random fuzz may not draw them), the other arguments valid."""
    schema = tools()[name].input_schema
    entry = f"worst-{name}"
    call(ws, "repocontext_remember", {"topic": "decisions", "id": entry, "body": "Kept."})
    known = known_values(ws.store.repo_id, entry)
    base = {arg: known[arg][0] if arg in known else schema["properties"][arg]["enum"][0]
            for arg in schema.get("required", [])}
    regex_flag = {"regex": True} if name == "grep" else {}
    for arg, sub in schema["properties"].items():
        if sub.get("type") not in ("string", "array"):
            continue
        for worst in WORST:
            args = {**base, **regex_flag, arg: [worst] if sub["type"] == "array" else worst}
            start = time.monotonic()
            try:
                with deadline.bounded(CALL_S, name):
                    json.loads(serialize(call(ws, name, args)))
            except RepoctxError as exc:
                assert str(exc).strip()
            elapsed = time.monotonic() - start
            assert elapsed < CALL_S + GRACE_S, f"{name}({arg}={worst[:20]!r}) ran {elapsed:.1f}s"
