"""The cache key of a bench's indexes: a digest of the repoctx code that builds an index.

An index (the store and its export, as ``repoctx index --embedder none`` builds them)
depends on the modules that run while it is built, not on the ranking and bundling code that
reads it afterwards. Which modules those are is read from a real run, not listed by hand: a
clean interpreter indexes a small sample tree (a file of each kind the walk dispatches on)
and reports the repoctx modules it loaded. To those are added their sibling modules inside
the same subpackage (a lazily imported helper that only some inputs reach, a worker's module
on a large tree), and every non-Python file of the package (grammars' queries, SQL, data).
The layer roots (``repoctx/`` and ``repoctx/retrieval/``) hold unrelated layers side by side,
so their siblings are not added.

So a change to search or bundle code reuses the cached indexes, and a change to anything
that writes the store or the export re-indexes.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path

import repoctx

PACKAGE = Path(repoctx.__file__).resolve().parent
_LAYER_ROOTS = frozenset({PACKAGE, PACKAGE / "retrieval"})

_SAMPLE = {
    "pkg/__init__.py": "from .core import run\n",
    "pkg/core.py": "class Runner:\n    def run(self, x):\n        return helper(x)\n\n\n"
                   "def helper(x):\n    raise ValueError('bad x')\n",
    "pkg/core.pyi": "def helper(x: int) -> int: ...\n",
    "tests/test_core.py": "from pkg.core import helper\n\n\ndef test_helper():\n"
                          "    assert helper\n",
    "web/app.js": "export function greet(name) { return `hi ${name}`; }\n",
    "web/app.ts": "export const add = (a: number, b: number): number => a + b;\n",
    "README.md": "# Sample\n\nA tree to index.\n\n## Use\n\nRun it.\n",
    "docs/guide.rst": "Guide\n=====\n\nText.\n",
    "notes.txt": "Release Notes\n\nNothing yet.\n",
    "package.json": '{"name": "sample", "version": "1.0.0"}\n',
}

_INDEX = """
import json, sys
from pathlib import Path
from repoctx import open_store, vectors
from repoctx.contextpull import export_store
from repoctx.reconcile import reconcile_pass
from repoctx.retrieval.index.export_extras import export_extras
root, out = Path(sys.argv[1]), Path(sys.argv[2])
store = open_store(root, repo_id="sample", store_dir=out / "store")
vectors.choose(store, "none")
reconcile_pass(store, root)
export_store(store, root, out / "export.sqlite", finalize=export_extras(store))
store.close()
files = sorted({m.__file__ for name, m in list(sys.modules.items())
                if name.split(".")[0] == "repoctx" and getattr(m, "__file__", None)})
print(json.dumps(files))
"""


def loaded_at_index_time() -> list[Path]:
    """The repoctx module files a clean interpreter loads while indexing the sample tree."""
    with tempfile.TemporaryDirectory(prefix="repoctx-index-key-") as tmp:
        root, out = Path(tmp, "tree"), Path(tmp, "out")
        for rel, text in _SAMPLE.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        out.mkdir()
        done = subprocess.run([sys.executable, "-c", _INDEX, str(root), str(out)],
                              capture_output=True, text=True, check=False)
        if done.returncode:
            raise SystemExit(f"indexing the sample tree failed, so the index cache key is "
                             f"unknown:\n{done.stderr[-2000:]}")
        return [Path(f).resolve() for f in json.loads(done.stdout.splitlines()[-1])]


def index_files() -> list[Path]:
    """The files whose bytes key an index: the modules loaded at index time, their siblings
    below the layer roots, and every non-Python file of the package."""
    chosen = set(loaded_at_index_time())
    for module in list(chosen):
        if module.parent not in _LAYER_ROOTS:
            chosen.update(module.parent.glob("*.py"))
    for path in PACKAGE.rglob("*"):
        if (path.is_file() and "__pycache__" not in path.parts
                and path.suffix not in {".py", ".pyc"}):
            chosen.add(path)
    return sorted(p for p in chosen if p.is_relative_to(PACKAGE))


@lru_cache(maxsize=1)
def index_key() -> str:
    """12 hex digits of SHA-256 over repoctx's version and ``index_files()`` (path and
    bytes each)."""
    digest = hashlib.sha256(repoctx.__version__.encode())
    for path in index_files():
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0"
                      + path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]
