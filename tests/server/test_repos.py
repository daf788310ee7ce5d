"""server/repos: one ``repoctx serve`` for several repositories, driven through the
official MCP client over stdio, and the routing of a call to its repository."""

import json
import subprocess
import sys

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from repoctx.errors import ToolError
from repoctx.server.repos import Repos, open_repos, pointed_at
from repoctx.tokenizer import count_tokens
from tests.reconcile.helpers import write


@pytest.fixture(scope="module")
def repos(tmp_path_factory):
    """Two indexed repositories (``alpha``, ``beta``) and one never indexed (``gamma``)."""
    base = tmp_path_factory.mktemp("multi")
    write(base / "alpha", {"pkg/alpha.py": "def alpha_only():\n    return 1\n",
                           "shared.py": "def common():\n    pass\n",
                           "docs/a.md": "# Alpha\n\nThe alpha guide explains alpha things.\n"})
    write(base / "beta", {"lib/beta.py": "def beta_only():\n    return 2\n",
                          "shared.py": "def common():\n    pass\n"})
    write(base / "gamma", {"g.py": "def gamma():\n    pass\n"})
    for name in ("alpha", "beta"):
        subprocess.run([sys.executable, "-m", "repoctx", "index", str(base / name)],
                       check=True, capture_output=True)
    return base


def serve_args(*roots):
    return ["-m", "repoctx", "serve", *[arg for r in roots for arg in ("--repo", str(r))]]


def over_stdio(roots, calls):
    """The instructions, the tool list and the answer of each ``(tool, arguments)``."""
    params = StdioServerParameters(command=sys.executable, args=serve_args(*roots))

    async def run():
        async with stdio_client(params) as (read, write_), ClientSession(read, write_) as s:
            init = await s.initialize()
            listed = (await s.list_tools()).tools
            answers = [await s.call_tool(name, args) for name, args in calls]
            return init.instructions, listed, answers

    return anyio.run(run)


def text(result):
    return json.loads(result.content[0].text)


def error(result):
    assert result.is_error is True, result.content
    return text(result)["error"]["message"]


def tool_list_tokens(listed):
    return count_tokens("".join(json.dumps({"name": t.name, "description": t.description,
                                            "inputSchema": t.input_schema}) for t in listed))


def test_each_repository_is_searched_by_repo_and_by_where_the_paths_fall(repos):
    alpha, beta = repos / "alpha", repos / "beta"
    calls = [
        ("repocontext_search", {"query": "alpha_only", "repo": "alpha"}),
        ("repocontext_search", {"query": "beta_only", "repo": str(beta)}),
        ("repocontext_search", {"query": "alpha_only", "repo": "beta"}),
        ("repocontext_outline", {"path": str(beta / "lib/beta.py")}),   # absolute: beta's
        ("repocontext_outline", {"path": "pkg/alpha.py"}),              # only alpha has it
        ("repocontext_changed", {"paths": ["lib"]}),
        ("read", {"id": "docs/a.md#0"}),                                # alpha's document
        ("grep", {"pattern": "beta_only", "repo": "beta"}),
        ("repocontext_index_status", {"repo": "alpha"}),
    ]
    _, _, answers = over_stdio([alpha, beta], calls)
    for (name, _), result in zip(calls, answers, strict=True):
        assert result.is_error is False, (name, result.content)
    hits = [[h["path"] for h in text(a)["hits"]] for a in answers[:3]]
    assert hits[0][0] == "pkg/alpha.py" and hits[1][0] == "lib/beta.py"
    assert "pkg/alpha.py" not in hits[2]  # beta's index knows nothing of alpha
    assert text(answers[3])["symbols"][0]["fqName"] == "lib.beta.beta_only"
    assert text(answers[4])["symbols"][0]["fqName"] == "pkg.alpha.alpha_only"
    assert text(answers[6])["doc"] == "docs/a.md"
    assert text(answers[7])["matches"][0]["doc"] == "lib/beta.py"
    assert text(answers[8])["repoId"] == "alpha"


def test_unknown_ambiguous_and_unindexed_repositories_are_tool_errors(repos):
    alpha, beta, gamma = repos / "alpha", repos / "beta", repos / "gamma"
    calls = [
        ("repocontext_search", {"query": "common"}),                   # nothing to tell
        ("repocontext_outline", {"path": "shared.py"}),                # in both
        ("repocontext_search", {"query": "x", "repo": "nope"}),
        ("repocontext_changed", {"paths": [str(alpha / "pkg"), str(beta / "lib")]}),
        ("repocontext_search", {"query": "gamma", "repo": "gamma"}),   # never indexed
        ("repocontext_search", {"query": "alpha_only", "repo": "alpha"}),  # still works
        ("repocontext_search", {"query": "x", "repo": 7}),
    ]
    instructions, _, answers = over_stdio([alpha, beta, gamma], calls)
    listed = f"alpha ({alpha}), beta ({beta}), gamma ({gamma})"
    assert listed in instructions
    assert error(answers[0]) == ("this server serves several repositories; pass repo, one "
                                 f"of {listed}")
    assert listed in error(answers[1])
    assert error(answers[2]) == f"repo: unknown repository 'nope'; this server serves {listed}"
    assert "several repositories (alpha, beta)" in error(answers[3])
    assert error(answers[4]) == f"no index for {gamma}: run `repoctx index {gamma}`"
    assert text(answers[5])["hits"][0]["path"] == "pkg/alpha.py"
    assert "repo: must be a repository id or folder" in error(answers[6])


def test_one_repository_lists_the_schemas_unchanged_and_several_add_repo(repos):
    alpha, beta = repos / "alpha", repos / "beta"
    _, single, answers = over_stdio([alpha], [("repocontext_search", {"query": "alpha_only"})])
    _, several, _ = over_stdio([alpha, beta], [])
    from repoctx.server.mcp_server import mcp_tool
    from repoctx.tools.registry import tools

    assert [t.input_schema for t in single] == [mcp_tool(t).input_schema
                                                for t in tools().values()]
    assert all("repo" not in t.input_schema["properties"] for t in single)
    assert text(answers[0])["hits"][0]["path"] == "pkg/alpha.py"
    for tool in several:
        props = tool.input_schema["properties"]
        assert next(iter(props)) == "repo" and "repoId" not in props, tool.name
    # ``repo`` replaces ``repoId``: a few tokens more for ContextPull's five tools only
    assert tool_list_tokens(several) - tool_list_tokens(single) <= 60
    assert tool_list_tokens(single) <= 3000


def test_routing_prefers_repo_then_paths_keys_and_section_ids(repos):
    served = open_repos([repos / "alpha", repos / "beta", repos / "gamma"])
    try:
        alpha, beta, gamma = served.repos
        assert [r.id for r in served.repos] == ["alpha", "beta", "gamma"]
        assert served.route({"repo": "beta", "query": "x"}) == (beta, {"query": "x"})
        assert served.named(str(repos / "alpha" / "pkg")) is alpha  # a folder inside it
        assert pointed_at(served.repos, {"key": "repo/beta/mem/notes/n1"}) == [beta]
        assert pointed_at(served.repos, {"repoId": "gamma"}) == [gamma]
        assert pointed_at(served.repos, {"paths": ["*.py", "."]}) == []  # globs tell nothing
        assert pointed_at(served.repos, {"id": "lib/beta.py#0"}) == [beta]
        with pytest.raises(ToolError, match="pass repo, one of alpha"):
            served.route({"query": "x"})
    finally:
        served.close()


def test_one_repository_takes_every_call_and_publishes_no_repo(repos):
    served = open_repos([repos / "alpha"])
    try:
        only = served.repos[0]
        assert served.route({"query": "x"}) == (only, {"query": "x"})
        schema = {"type": "object", "properties": {"repoId": {"type": "string"}}}
        assert served.published(schema) is schema and served.instructions() == ""
        with pytest.raises(ToolError, match="unknown repository 'beta'"):
            served.route({"repo": "beta"})
    finally:
        served.close()


def test_a_store_or_repo_id_cannot_be_shared_by_several_repositories(repos):
    with pytest.raises(ValueError, match="one repository"):
        open_repos([repos / "alpha", repos / "beta"], repo_id="x")
    with pytest.raises(ValueError, match="at least one"):
        Repos([])
    done = subprocess.run([sys.executable, *serve_args(repos / "alpha", repos / "beta"),
                           "--repo-id", "x"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "--repo-id name one repository's store" in done.stderr
