"""The body: diff into whole-line splices, apply only the changed lines, size bound."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx import memory, open_store
from repoctx.crdt import record, text_body
from repoctx.errors import ToolError
from repoctx.memory.body import MAX_BODY_BYTES, check_body, edits, rewrite, split_lines
from repoctx.store import Store
from repoctx.trees import BY_FAMILY


def apply(old: list[str], splices) -> str:
    out = list(old)
    for start, end, new in sorted(splices, reverse=True):
        out[start:end] = new
    return "\n".join(out)


@settings(max_examples=200, deadline=None)
@given(st.text("ab\n é😀", max_size=60), st.text("ab\n é😀", max_size=60))
def test_edits_turn_old_into_new(old, new):
    assert apply(split_lines(old), edits(split_lines(old), new)) == new


def test_a_changed_line_is_replaced_whole_never_edited_by_character():
    assert edits(["same"], "same") == []
    assert edits(["a", "hello world", "b"], "a\nhello there world\nb") == [
        (1, 2, ["hello there world"])]
    assert edits([], "x") == [(0, 0, ["x"])] and edits(["x"], "") == [(0, 1, [])]


def test_large_bodies_splice_only_the_changed_lines():
    old = [f"line {i}" for i in range(5_000)]
    new = "\n".join(old).replace("line 10\n", "line ten\n").replace("line 4000\n", "")
    got = edits(old, new)
    assert apply(old, got) == new
    assert got == [(10, 11, ["line ten"]), (4000, 4001, [])]


@pytest.mark.parametrize("old, new", [
    ("a\n" * 32_767, "a\n" * 16_000 + "x\n" + "a\n" * 16_766),  # one change amid repeats
    ("a\nb\n" * 16_383, "b\na\n" * 16_383),  # nothing but repeats, all shifted
    ("x" * 65_536, "y" * 65_536),  # one 64 KiB line
])
def test_a_64_kib_body_of_repeated_lines_rewrites_quickly_and_exactly(old, new):
    started = time.perf_counter()
    base = rewrite(text_body.EMPTY, old, "r1")
    assert text_body.value(text_body.merge(base, rewrite(base, new, "r1"))) == new
    assert time.perf_counter() - started < 10  # quadratic matching would take minutes


def test_rewrite_touches_only_the_changed_line():
    base = rewrite(text_body.EMPTY, "\n".join(["x" * 100] * 100), "r1")
    delta = rewrite(base, "\n".join(["x" * 100] * 50 + ["!"] + ["x" * 100] * 50), "r1")
    assert len(delta.update) < 100
    assert text_body.value(text_body.merge(base, delta)).count("!") == 1
    assert rewrite(base, text_body.value(base), "r1") == text_body.EMPTY


def test_check_body_bounds_utf8_bytes():
    assert check_body("x" * MAX_BODY_BYTES)
    with pytest.raises(ToolError, match="65536 bytes"):
        check_body("é" * (MAX_BODY_BYTES // 2 + 1))
    with pytest.raises(ToolError, match="Unicode"):
        check_body("bad \ud800 surrogate")


# --- three replicas editing one entry through the memory functions, then exchanging --------

BASE = "Intro line.\nSAME PARA version\nNext line.\n\nClosing paragraph."


@pytest.fixture
def three(tmp_path: Path):
    stores = [open_store(tmp_path / n, repo_id="demo", replica_id=f"replica-{n}")
              for n in ("a", "b", "c")]
    memory.remember(stores[0], "t", "p", body=BASE)
    exchange_all(stores)
    yield stores
    for s in stores:
        s.close()


def exchange_all(stores: list[Store]) -> None:
    """Every memory record of every replica merged into every other (full anti-entropy)."""
    for src in stores:
        with src.snapshot() as snap:
            rows = list(snap.scan_tree(BY_FAMILY["mem"], include_hidden=True))
        for dst in stores:
            for k, rec in rows:
                dst.merge(k, rec)


def edit_all_then_exchange(stores: list[Store], bodies: list[str]) -> list[str]:
    """Each replica writes its body concurrently; the bodies every replica reads after."""
    for store, body in zip(stores, bodies, strict=True):
        memory.update(store, KEY, {"body": body})
    exchange_all(stores)
    assert len({stored(s) for s in stores}) == 1, "replicas did not converge to identical bytes"
    return [memory.recall(s, KEY)["fields"]["body"] for s in stores]


KEY = "repo/demo/mem/t/p"


def stored(store: Store) -> bytes:
    with store.snapshot() as snap:
        return record.encode(snap.get(KEY))


def test_three_replicas_replacing_one_line_keep_all_three_adjacent_and_intact(three):
    versions = [BASE.replace("SAME PARA version", f"SAME PARA {r} version") for r in "xyz"]
    got = edit_all_then_exchange(three, versions)
    assert got[0] == got[1] == got[2]
    lines = got[0].split("\n")
    assert lines[0] == "Intro line." and lines[4:] == ["Next line.", "", "Closing paragraph."]
    assert sorted(lines[1:4]) == [f"SAME PARA {r} version" for r in "xyz"]


def test_adjacent_line_edits_on_three_replicas_all_apply(three):
    got = edit_all_then_exchange(three, [
        BASE.replace("Intro line.", "INTRO (a)"),
        BASE.replace("SAME PARA version", "SAME PARA (b)"),
        BASE.replace("Next line.", "NEXT (c)")])
    assert got[0] == "INTRO (a)\nSAME PARA (b)\nNEXT (c)\n\nClosing paragraph."
    assert got[0] == got[1] == got[2]


def test_disjoint_edits_on_three_replicas_all_apply(three):
    got = edit_all_then_exchange(three, [
        BASE.replace("Intro line.", "Intro line, edited by a."),
        BASE.replace("Closing paragraph.", "Closing paragraph.\nAdded by b."),
        BASE.replace("\n\n", "\n\nInserted by c.\n\n")])
    assert got[0] == ("Intro line, edited by a.\nSAME PARA version\nNext line.\n\n"
                      "Inserted by c.\n\nClosing paragraph.\nAdded by b.")
    assert got[0] == got[1] == got[2]
