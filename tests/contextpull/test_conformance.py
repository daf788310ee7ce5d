"""The ContextPull conformance suite: export corpus/, answer cases.json, compare projections.

The two ``index`` cases depend on ContextPull's own offline summaries and index layout,
which DESIGN §5 leaves free; they are marked xfail (non-strict) and report either way.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from repoctx.contextpull import Reader, call_tool
from repoctx.errors import ToolError

from .conftest import CONFORMANCE

CASES = json.loads((CONFORMANCE / "cases.json").read_text("utf-8"))


def sha16(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def project(op: str, result: dict[str, Any]) -> dict[str, Any]:
    if op == "index":
        return {"text_sha": sha16(result["text"])}
    if op == "search":
        ids = [hit["id"] for hit in result["hits"]]
        return {"ids": ids, "mode": result["mode"], "empty": not ids}
    if op == "read":
        return {
            "id": result["id"],
            "text_sha": sha16(result["text"]),
            "heading_path": result["heading_path"],
            "context_ids": [s["id"] for s in result["context"]],
            "prev": result["prev"],
            "next": result["next"],
        }
    if op == "grep":
        return {
            "ids": [m["id"] for m in result["matches"]],
            "lines_sha": [sha16(m["line"]) for m in result["matches"]],
            "truncated": result["truncated"],
        }
    assert op == "neighbours"
    header = result["header"]
    return {"ids": [s["id"] for s in result["sections"]], "header": header and header["id"]}


def _case_id(case: dict[str, Any]) -> str:
    return f"{case['op']}:{json.dumps(case['args'], ensure_ascii=False)}"


def _params() -> list[Any]:
    marks = pytest.mark.xfail(strict=False, reason="index text layout/summaries are free")
    return [
        pytest.param(case, id=_case_id(case), marks=marks if case["op"] == "index" else ())
        for case in CASES["cases"]
    ]


def test_export_shape(corpus_store: Path) -> None:
    with Reader(corpus_store) as reader:
        assert reader.meta.corpus_fingerprint == CASES["meta"]["corpus_fingerprint"]
        assert reader.meta.schema_version == CASES["meta"]["store_schema"]
        listing = reader.index("")
    assert f"· {CASES['meta']['documents']} documents ·" in listing["text"]
    assert f"· {CASES['meta']['sections']} sections" in listing["text"]
    assert "drafts/" not in listing["text"]


def test_case_count() -> None:
    ops = [case["op"] for case in CASES["cases"]]
    assert len(ops) == 23 and ops.count("index") == 2


@pytest.mark.parametrize("case", _params())
def test_case(corpus_reader: Reader, case: dict[str, Any]) -> None:
    try:
        result = call_tool(corpus_reader, case["op"], case["args"])
    except ToolError:
        assert case["expect"] == {"error": True}
        return
    assert project(case["op"], result) == case["expect"]
