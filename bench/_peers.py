"""Shared by the benchmarks: the tools an agent user could pick instead of repoctx, each
installed from the package index into a virtual environment of the benchmark's own.

Every peer is pinned (its own release and what it needs to run offline: the newest
``tree-sitter-language-pack`` fetches its grammars from the network at run time, so
cased-kit gets the last release that ships them; cased-kit imports ``tqdm`` without
declaring it). A peer's command builds its index of a tree as a fresh process; whatever
it writes goes under the folder it is given (``TMPDIR`` points there too, where
code-index-mcp keeps its index), so that folder's bytes are its index on disk.
"""

from __future__ import annotations

import os
import subprocess
import sys
import venv
from dataclasses import dataclass
from pathlib import Path

VENVS = Path(__file__).resolve().parent / ".cache" / "peers"

# code-index-mcp is an MCP server; its "deep index" tool calls this manager.
_DEEP_INDEX = (
    "import sys\n"
    "from code_index_mcp.indexing.deep_index_manager import DeepIndexManager\n"
    "manager = DeepIndexManager()\n"
    "ok = manager.set_project_path(sys.argv[1]) and manager.build_index(force_rebuild=True)\n"
    "print(manager.get_index_stats())\n"
    "sys.exit(0 if ok else 1)\n"
)


@dataclass(frozen=True)
class Peer:
    """One peer: its label, pinned requirements and the command that indexes ``{root}``
    into ``{out}`` (``{venv}`` is its environment)."""

    key: str
    label: str
    requirements: tuple[str, ...]
    argv: tuple[str, ...]

    def command(self, root: Path, out: Path) -> tuple[list[str], dict[str, str]]:
        """The command and environment that index ``root``, writing under ``out``."""
        fill = {"venv": str(VENVS / self.key), "root": str(root), "out": str(out)}
        env = {**os.environ, "TMPDIR": str(out), "HOME": str(out)}
        return [part.format(**fill) for part in self.argv], env


PEERS = (
    Peer("cased-kit", "cased-kit 3.5.1 `kit index` (symbols)",
         ("cased-kit==3.5.1", "tree-sitter-language-pack==0.13.0", "tqdm==4.70.1"),
         ("{venv}/bin/kit", "index", "{root}", "-o", "{out}/index.json")),
    Peer("code-index-mcp", "code-index-mcp 2.17.1 (deep index)", ("code-index-mcp==2.17.1",),
         ("{venv}/bin/python", "-c", _DEEP_INDEX, "{root}")),
)


def installed(peer: Peer) -> Path:
    """The peer's environment, made (or remade, when its pins changed) on first use."""
    home, marker = VENVS / peer.key, VENVS / peer.key / "pins.txt"
    pins = "\n".join(peer.requirements)
    if marker.exists() and marker.read_text() == pins:
        return home
    print(f"[peers] installing {' '.join(peer.requirements)}", file=sys.stderr, flush=True)
    venv.create(home, with_pip=True, clear=True)
    done = subprocess.run([str(home / "bin" / "python"), "-m", "pip", "install", "-q",
                           *peer.requirements], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"installing {peer.key} failed: {done.stderr[-2000:]}")
    marker.write_text(pins)
    return home
