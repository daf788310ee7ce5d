"""bench/_peers: each peer's command fills in its tree and output folder, every write of
the peer kept under that folder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _peers import PEERS, VENVS  # noqa: E402


def test_every_peer_is_pinned_and_indexes_the_tree_it_is_given_into_its_folder(tmp_path):
    for peer in PEERS:
        assert peer.requirements and all("==" in r for r in peer.requirements)
        command, env = peer.command(Path("/src/tree"), tmp_path)
        assert command[0].startswith(str(VENVS / peer.key))
        assert "/src/tree" in command
        assert env["TMPDIR"] == env["HOME"] == str(tmp_path)
        assert not any(f"{{{key}}}" in part for part in command for key in ("venv", "root", "out"))
