"""extract/languages/js_exports: the names a JS/TS file exports its definitions under."""

from __future__ import annotations

from repoctx.extract import export_aliases

RENAMING = """const stringType = ZodString.create;
class ZodType {}
export { stringType as string, ZodType as Schema, ZodType as ZodSchema, kept };
export { other as renamed } from "./elsewhere";
export * as z from "./external";
"""


def test_a_clause_without_from_renames_the_files_own_bindings():
    assert export_aliases("src/types.ts", RENAMING) == {
        "ZodType": ("Schema", "ZodSchema"), "stringType": ("string",)}


def test_javascript_and_tsx_files_are_read_too():
    text = "function f() {}\nexport { f as g };\n"
    assert export_aliases("lib/a.mjs", text) == {"f": ("g",)}
    assert export_aliases("ui/a.tsx", text) == {"f": ("g",)}


def test_other_files_and_plain_exports_have_no_aliases():
    assert export_aliases("pkg/a.py", "export { f as g }\n") == {}
    assert export_aliases("src/a.ts", "export { f };\nexport { f as f };\n") == {}
    assert export_aliases("src/a.ts", "export { f as (\n") == {}  # malformed: no raise
