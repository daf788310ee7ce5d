"""extract/languages/js_packages: a bare import of the importer's own package finds its source."""

from __future__ import annotations

import json

from repoctx.extract import resolve_import
from tests.extract.memory_files import MemoryFiles

ZOD_LIKE = json.dumps({"name": "zod", "exports": {
    ".": {"@zod/source": "./src/index.ts", "types": "./index.d.cts", "import": "./index.js"},
    "./v3": {"@zod/source": "./src/v3/index.ts", "types": "./v3/index.d.cts",
             "require": "./v3/index.cjs"},
    "./locales/*": {"source": "./src/locales/*", "import": "./locales/*"}}})


def files(manifest: str, *paths: str) -> MemoryFiles:
    return MemoryFiles({"package.json": manifest, **{p: "export {};\n" for p in paths}})


def test_the_exports_map_leads_to_the_source_the_repository_holds():
    tree = files(ZOD_LIKE, "src/index.ts", "src/v3/index.ts", "index.d.cts", "v3/index.cjs",
                 "src/locales/en.ts")
    test = "src/v3/tests/a.test.ts"
    assert resolve_import(test, "zod/v3", tree) == "src/v3/index.ts"
    assert resolve_import(test, "zod", tree) == "src/index.ts"  # not the .d.cts types
    assert resolve_import(test, "zod/locales/en.js", tree) == "src/locales/en.ts"
    assert resolve_import(test, "zod/v9", tree) is None  # not exported
    assert resolve_import(test, "vitest", tree) is None  # another package


def test_without_exports_main_then_the_subpath_itself():
    tree = files(json.dumps({"name": "@acme/util", "main": "lib/index.js"}),
                 "lib/index.ts", "lib/strings.ts")
    assert resolve_import("test/a.test.ts", "@acme/util", tree) == "lib/index.ts"
    assert resolve_import("test/a.test.ts", "@acme/util/lib/strings", tree) == "lib/strings.ts"
    assert resolve_import("test/a.test.ts", "@acme/utility", tree) is None


def test_a_malformed_or_missing_manifest_resolves_nothing():
    assert resolve_import("a.ts", "zod", files("{not json", "src/index.ts")) is None
    assert resolve_import("a.ts", "zod", files("[1, 2]", "src/index.ts")) is None
    assert resolve_import("a.ts", "zod", MemoryFiles({"src/index.ts": ""})) is None
    hostile = json.dumps({"name": "x", "exports": {".": "../../etc/passwd"}})
    assert resolve_import("a.ts", "x", files(hostile)) is None  # never outside the tree
