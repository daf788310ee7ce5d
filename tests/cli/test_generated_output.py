"""Bundled output outside git ranks below the source it was built from, through real
``repoctx index`` and ``repoctx call`` processes, and is still found by its path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SOURCE = ("import { createBuilder } from './builder';\n\n"
          "/** Start a tRPC backend: the builder of routers and procedures. */\n"
          "export function initTRPC(options: { transformer?: unknown } = {}) {\n"
          "  return createBuilder(options);\n}\n")
BUNDLE = ('"use strict";\n'
          'Object.defineProperty(exports, "__esModule", { value: true });\n'
          "//#region src/initTRPC.ts\n"
          "/** Start a tRPC backend: the builder of routers and procedures. */\n"
          "function initTRPC(options = {}) {\n  return createBuilder(options);\n}\n"
          "function initTRPCWith(options) {\n  return initTRPC(options);\n}\n"
          "//#endregion\n"
          "exports.initTRPC = initTRPC;\nexports.initTRPCWith = initTRPCWith;\n"
          "//# sourceMappingURL=initTRPC-abc.cjs.map\n")


def _call(root: Path, tool: str, arguments: dict) -> dict:
    done = subprocess.run([sys.executable, "-m", "repoctx", "call", tool,
                           json.dumps(arguments), "--repo", str(root)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)


def _search(root: Path, arguments: dict) -> list[str]:
    hits = _call(root, "repocontext_search", arguments)["hits"]
    return list(dict.fromkeys(h["path"] for h in hits))


def test_bundle_output_ranks_below_source_and_is_found_by_its_path(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "dist").mkdir()
    (tmp_path / "src" / "initTRPC.ts").write_text(SOURCE)
    (tmp_path / "dist" / "initTRPC-abc.cjs").write_text(BUNDLE)
    subprocess.run([sys.executable, "-m", "repoctx", "index", str(tmp_path), "--embedder",
                    "none"], check=True, capture_output=True, timeout=300)  # not a git checkout

    ranked = _search(tmp_path, {"query": "initTRPC"})
    assert ranked[:2] == ["src/initTRPC.ts", "dist/initTRPC-abc.cjs"]
    assert _search(tmp_path, {"query": "dist/initTRPC-abc.cjs"})[0] == "dist/initTRPC-abc.cjs"
    assert _search(tmp_path, {"query": "initTRPC", "paths": ["dist/"]}) == [
        "dist/initTRPC-abc.cjs"]
    bundle = _call(tmp_path, "repocontext_context", {"task": "initTRPC ignores its options"})
    assert [e["path"] for e in bundle["entries"]][:1] == ["src/initTRPC.ts"]
