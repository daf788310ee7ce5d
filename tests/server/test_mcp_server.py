"""Drive ``repoctx serve`` through the official MCP client over stdio."""

import json
import subprocess
import sys

import anyio
import pytest
from jsonschema import Draft202012Validator
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from repoctx.tokenizer import count_tokens
from tests.reconcile.helpers import write

APP = '''"""The app."""


class Model(Base):
    """A model that saves itself."""

    def save(self, force: bool = False) -> None:
        validate(self)


def validate(obj):
    raise ValidationError(obj)
'''


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp") / "repo"
    write(root, {"app.py": APP, "tests/test_app.py":
                 "from app import Model\n\nclass TestModel:\n    def test_save(self):\n"
                 "        Model().save()\n",
                 "docs/guide.md": "# Guide\n\n## Saving\n\nCall save to persist a model.\n"})
    subprocess.run([sys.executable, "-m", "repoctx", "index", str(root)], check=True,
                   capture_output=True)
    return root


async def session_run(root, body):
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "repoctx", "serve", "--repo", str(root)])
    async with stdio_client(params) as (read, write_), ClientSession(read, write_) as session:
        await session.initialize()
        return await body(session)


def payload(result):
    return json.loads(result.content[0].text)


def test_tools_are_listed_with_schemas_and_read_only_annotations(repo):
    async def body(session):
        return (await session.list_tools()).tools

    listed = {t.name: t for t in anyio.run(session_run, repo, body)}
    for name in ("repocontext_search", "repocontext_symbols", "repocontext_context",
                 "repocontext_remember", "repocontext_recall", "repocontext_scan",
                 "repocontext_outline", "repocontext_related", "repocontext_changed",
                 "repocontext_index_status", "repocontext_stats", "repocontext_health",
                 "search", "read", "grep", "neighbours", "index"):
        assert name in listed, name
        assert listed[name].description and listed[name].input_schema["type"] == "object"
    assert listed["repocontext_outline"].input_schema["required"] == ["path"]
    assert listed["repocontext_outline"].annotations.read_only_hint is True
    assert listed["search"].input_schema["properties"]["limit"]["maximum"] == 50
    # What a model is handed costs little: name, description and input schema of all tools
    # together, in the JSON a client renders them as, counted in cl100k tokens.
    sent = [json.dumps({"name": t.name, "description": t.description,
                        "inputSchema": t.input_schema}) for t in listed.values()]
    assert len(listed) == 21 and count_tokens("".join(sent)) <= 3000
    assert "maxLength" not in json.dumps(listed["repocontext_search"].input_schema)


def test_every_tool_answers_and_bad_arguments_are_tool_errors(repo):
    calls = {
        "repocontext_search": {"query": "save a model"},
        "repocontext_symbols": {"query": "validate"},
        "repocontext_context": {"task": "change how Model.save validates",
                                "responseBudgetTokens": 2000, "session": "s1"},
        "repocontext_remember": {"topic": "decisions", "id": "save",
                                 "body": "Saving always validates first."},
        "repocontext_list_topics": {},
        "repocontext_outline": {"path": "app.py"},
        "repocontext_related": {"symbol": "Model"},
        "repocontext_changed": {},
        "repocontext_index_status": {},
        "repocontext_health": {},
        "search": {"query": "save model"},
        "grep": {"pattern": "ValidationError"},
        "index": {},
        "read": {"id": "docs/guide.md#0"},
        "neighbours": {"id": "docs/guide.md#0"},
        "repocontext_stats": {},
    }

    async def body(session):
        results = {name: await session.call_tool(name, args) for name, args in calls.items()}
        results["bad"] = await session.call_tool("repocontext_outline", {"path": 7})
        results["unknown"] = await session.call_tool("read", {"id": "../../etc/passwd#0"})
        results["missing"] = await session.call_tool("repocontext_outline", {})
        return results

    results = anyio.run(session_run, repo, body)
    for name in calls:
        assert results[name].is_error is False, (name, results[name].content)
    outline = payload(results["repocontext_outline"])
    assert [s["fqName"] for s in outline["symbols"]] == [
        "app.Model", "app.Model.save", "app.validate"]
    assert outline["fullReadTokenCount"] > 0 and outline["fresh"] is True
    related = payload(results["repocontext_related"])
    assert related["tests"][0]["path"] == "tests/test_app.py"
    assert "tests.test_app.TestModel" in related["tests"][0]["names"]
    # the watching server's catch-up pass may still run when the calls are quick
    assert payload(results["repocontext_index_status"])["status"] in ("ready", "indexing")
    assert payload(results["repocontext_health"])["ok"] is True
    assert payload(results["search"])["hits"]
    assert payload(results["grep"])["matches"][0]["doc"] == "app.py"
    assert payload(results["repocontext_stats"])["calls"] == len(calls) - 1
    search_hits = payload(results["repocontext_search"])["hits"]
    assert search_hits[0]["path"] == "app.py" and search_hits[0]["fresh"] is True
    assert payload(results["repocontext_symbols"])["hits"][0]["symbol"] == "app.validate"
    bundle = payload(results["repocontext_context"])
    assert bundle["entries"] and bundle["responseTokens"] <= 2000
    assert results["repocontext_context"].content[0].text.count("responseTokens") == 1
    assert payload(results["repocontext_remember"])["created"] is True
    for bad in ("bad", "unknown", "missing"):
        assert results[bad].is_error is True
        assert "message" in payload(results[bad])["error"]
    assert "path" in payload(results["bad"])["error"]["message"]


def every_tool_call(repo_id):
    """Valid arguments for every tool, in an order where each finds what it needs."""
    key = f"repo/{repo_id}/mem/decisions/save"
    return [
        ("repocontext_remember", {"topic": "decisions", "id": "save", "body": "Validate first.",
                                  "addLinks": {"about": [f"repo/{repo_id}/file/app.py"]}}),
        ("repocontext_recall", {"key": key}),
        ("repocontext_update", {"key": key, "fields": {"title": "Saving"}, "addTags": ["db"]}),
        ("repocontext_neighbors", {"key": key}),
        ("repocontext_scan", {"scope": "symbols"}),
        ("repocontext_list_topics", {}),
        ("repocontext_search", {"query": "save a model"}),
        ("repocontext_search", {"queries": ["save", "validate"]}),
        ("repocontext_symbols", {"query": "validate"}),
        ("repocontext_context", {"task": "change how Model.save validates",
                                 "responseBudgetTokens": 2000}),
        ("repocontext_outline", {"path": "app.py"}),
        ("repocontext_related", {"path": "app.py"}),
        ("repocontext_changed", {}),
        ("repocontext_index_status", {}),
        ("repocontext_health", {}),
        ("repocontext_stats", {}),
        ("search", {"query": "save model"}),
        ("read", {"id": "docs/guide.md#0", "context": 1}),
        ("grep", {"pattern": "ValidationError"}),
        ("neighbours", {"id": "docs/guide.md#0"}),
        ("index", {}),
        ("repocontext_forget", {"key": key}),
    ]


def test_tools_carry_titles_output_schemas_and_truthful_annotations(repo):
    """Every answer validates against its tool's outputSchema, only the
    tools capability is advertised, and forget says it is destructive."""
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "repoctx", "serve", "--repo", str(repo)])

    async def run():
        async with stdio_client(params) as (read, write_), ClientSession(read, write_) as s:
            init = await s.initialize()
            listed = {t.name: t for t in (await s.list_tools()).tools}
            repo_id = payload(await s.call_tool("repocontext_index_status", {}))["repoId"]
            answers = [(n, await s.call_tool(n, a)) for n, a in every_tool_call(repo_id)]
            failed = await s.call_tool("repocontext_outline", {"path": 7})
            return init, listed, answers, failed

    init, listed, answers, failed = anyio.run(run)
    caps = init.capabilities
    assert caps.tools is not None and caps.prompts is None and caps.resources is None
    assert {n for n, _ in answers} == set(listed)  # every tool is called
    for name, tool in listed.items():
        assert tool.title and tool.annotations.title == tool.title, name
        assert tool.annotations.open_world_hint is False, name
        Draft202012Validator.check_schema(tool.output_schema)
        assert tool.output_schema["required"], name
        if tool.annotations.read_only_hint:
            assert tool.annotations.destructive_hint is False, name
            assert tool.annotations.idempotent_hint is True, name
    forget = listed["repocontext_forget"].annotations
    assert (forget.read_only_hint, forget.destructive_hint) == (False, True)
    for name in ("repocontext_context", "repocontext_search"):  # auto-approvable
        assert listed[name].annotations.read_only_hint is True, name
    assert listed["search"].annotations.read_only_hint is True
    for name, result in answers:
        assert result.is_error is False, (name, result.content)
        assert result.structured_content == payload(result), name
        Draft202012Validator(listed[name].output_schema).validate(result.structured_content)
    assert answers[-1][1].structured_content["forgotten"] is True
    assert failed.is_error is True and failed.structured_content is None
