"""What the tool list costs an agent: every tool's name, description and input schema as a
real MCP client receives them from `repoctx serve`, counted in cl100k tokens.

Every agent session pays this on every turn, before it asks anything. Measured for one
repository and for a server of two (`serve --repo A --repo B`, where every tool takes
`repo`). Writes the
`tool-list` section of docs/benchmarks.md (`--no-write` to leave it alone).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from repoctx.tokenizer import count_tokens

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _report beside us
from _report import write_section  # noqa: E402

BUDGET = 3000


async def listed_tools(*roots: Path) -> list[dict]:
    """The tools ``repoctx serve`` of ``roots`` lists, as a client hands them to its model."""
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "repoctx", "serve", *[arg for root in roots for arg in ("--repo", str(root))]])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = (await session.list_tools()).tools
    return [{"name": t.name, "description": t.description, "inputSchema": t.input_schema}
            for t in tools]


def report(rows: list[tuple[str, int]], several: list[tuple[str, int]]) -> str:
    """The section: a line per tool, most expensive first, the total against the budget,
    and the total of a server of two repositories."""
    total = sum(tokens for _, tokens in rows)
    lines = ["Each tool's `{name, description, inputSchema}` as `json.dumps` renders it.", "",
             "| tool | cl100k tokens |", "| --- | ---: |"]
    lines += [f"| `{name}` | {tokens} |" for name, tokens in sorted(rows, key=lambda r: -r[1])]
    lines += [f"| **all {len(rows)} tools** | **{total}** (budget {BUDGET}) |",
              f"| all {len(several)} tools, two repositories served (`repo` in each) | "
              f"{sum(tokens for _, tokens in several)} |"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:  # no index needed to list the tools
        one, two = Path(folder) / "one", Path(folder) / "two"
        one.mkdir()
        two.mkdir()
        tools = anyio.run(listed_tools, one)
        several = anyio.run(listed_tools, one, two)
    text = report(*[[(t["name"], count_tokens(json.dumps(t))) for t in listed]
                     for listed in (tools, several)])
    print(text)
    if not args.no_write:
        write_section(args.out, "tool-list", "The tool list an agent pays for", text)


if __name__ == "__main__":
    main()
