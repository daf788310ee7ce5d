"""Drive ``repoctx serve`` through the official MCP client over stdio."""

import json
import subprocess
import sys

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

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
    assert {"symbol": "tests.test_app.TestModel", "path": "tests/test_app.py"} in related["tests"]
    assert payload(results["repocontext_index_status"])["status"] == "ready"
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
