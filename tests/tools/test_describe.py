"""tools/describe: ``repoctx tools NAME`` spells out a tool's arguments and answer."""

from __future__ import annotations

import json
import subprocess
import sys

from repoctx.tools.describe import describe
from repoctx.tools.registry import find_tool, tools


def test_arguments_carry_types_defaults_limits_and_the_answer_its_fields():
    found = describe(find_tool("repocontext_search"))
    args = {a["name"]: a for a in found["arguments"]}
    assert args["k"] == {"name": "k", "type": "integer", "required": False, "default": 10,
                         "minimum": 1, "maximum": 100, "description": "Most hits."}
    assert args["kinds"]["itemEnum"] == ["file", "symbol", "section", "memory"]
    assert args["query"]["maxLength"] > 1000 and args["paths"]["type"] == "array of string"
    fields = {f["name"]: f for f in found["answer"]}
    assert "score" in fields["hits"]["itemFields"] and fields["mode"]["always"]
    assert describe(find_tool("repocontext_outline"))["arguments"][1]["required"] is True


def test_contextpull_tools_are_described_from_their_contract():
    for name in ("search", "read", "grep", "neighbours", "index"):
        found = describe(tools()[name])
        assert found["guide"] == found["description"] and found["arguments"]


def test_the_command_prints_one_tool_and_refuses_an_unknown_one():
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "repoctx", "tools", *args],
                              capture_output=True, text=True, timeout=120)

    text = run("repocontext_context")
    assert text.returncode == 0 and "responseBudgetTokens" in text.stdout
    assert "default 8192" in text.stdout and "answer fields:" in text.stdout
    machine = json.loads(run("repocontext_context", "--json").stdout)
    assert machine["name"] == "repocontext_context" and machine["readOnly"] is True
    assert machine["writesWith"] == ["session"] and "writes bookkeeping with session" in text.stdout
    unknown = run("repocontext_nope")
    assert unknown.returncode == 1 and "did you mean" in unknown.stderr
