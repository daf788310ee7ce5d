"""bench/swe: which edited lines a bundle delivers, per gold file, with and without a patch."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from _swe_splits import Instance  # noqa: E402
from swe import Definitions, edited_lines, edits_inside  # noqa: E402

SOURCE = "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n"


def _tree(tmp_path: Path) -> Definitions:
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "n.py").write_text("x = 1\n")
    return Definitions(tmp_path)


def _instance(gold: tuple[str, ...], spans: dict[str, list[str]], patch: str = "") -> Instance:
    return Instance("t-1", "sympy", "abc", "task", gold, spans, patch)


PATCH = ("--- a/m.py\n+++ b/m.py\n@@ -8,2 +8,2 @@\n def g():\n-    return 2\n+    return 3\n"
         "--- a/n.py\n+++ b/n.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n")


def test_with_a_patch_each_gold_file_needs_the_lines_it_changes(tmp_path):
    edits = edited_lines(_instance(("m.py", "n.py"), {}, PATCH), _tree(tmp_path))
    # n.py's insertion after its last line: the line past the end is clipped
    assert edits == {"m.py": [[{9}]], "n.py": [[{1}]]}
    delivered = {"m.py": set(range(8, 10)), "n.py": set()}
    assert edits_inside(edits, lambda p: delivered[p]) == {"m.py": True, "n.py": False}


def test_without_a_patch_the_edited_definitions_are_located_by_name(tmp_path):
    edits = edited_lines(_instance(("m.py",), {"m.py": ["f", "imports"]}), _tree(tmp_path))
    assert edits == {"m.py": [[{4, 5}], [{1}]]}
    assert edits_inside(edits, lambda p: {1, 4, 5}) == {"m.py": True}
    assert edits_inside(edits, lambda p: {4, 5}) == {"m.py": False}


def test_an_instance_whose_edits_cannot_be_located_is_left_out(tmp_path):
    defs = _tree(tmp_path)
    assert edited_lines(_instance(("m.py",), {"m.py": ["missing"]}), defs) is None
    assert edited_lines(_instance(("m.py",), {}), defs) is None
    assert edited_lines(_instance(("m.py", "n.py"), {}, PATCH.split("--- a/n.py")[0]),
                        defs) is None
