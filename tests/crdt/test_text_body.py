"""The collaborative text body: line splices, concurrent edits of one line, version 1
texts, canonical bytes."""

from __future__ import annotations

import pycrdt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import record, text_body
from repoctx.crdt.text_body import EMPTY, lines, merge, replace_lines, value
from repoctx.errors import InvalidEncodingError, PreconditionError, UnsupportedVersionError

ALPHABET = "ab é😀中"


def typed(text: str, replica: str = "r1") -> text_body.TextBody:
    return replace_lines(EMPTY, [(0, 0, text.split("\n"))], replica)


def legacy(text: str, replica: str = "r1") -> text_body.TextBody:
    """A version 1 state: the same text as a character-level Yjs ``Text``."""
    doc = pycrdt.Doc(client_id=text_body.client_id(replica), skip_gc=True)
    doc.get("body", type=pycrdt.Text).insert(0, text)
    return text_body.TextBody(pycrdt.merge_updates(doc.get_update()))


def test_empty_reads_as_empty_text_and_is_a_tombstone_value():
    assert value(EMPTY) == "" and lines(EMPTY) == []
    assert record.is_tombstone(record.write({"body": EMPTY}, 1))


def test_lines_join_with_newlines_and_round_trip_any_text():
    for text in ["héllo 😀", "a\n", "\n", "a\n\nb", ""]:
        state = typed(text) if text else EMPTY
        assert value(state) == text


def test_concurrent_replacements_of_one_line_keep_both_adjacent_in_one_order():
    base = typed("intro\nSAME PARA version\nend")
    a = merge(base, replace_lines(base, [(1, 2, ["SAME PARA r3 version"])], "r3"))
    b = merge(base, replace_lines(base, [(1, 2, ["SAME PARA r4 version"])], "r4"))
    ab, ba = merge(a, b), merge(b, a)
    assert ab == ba and text_body.encode(ab) == text_body.encode(ba)
    assert lines(ab)[0] == "intro" and lines(ab)[3] == "end"
    assert sorted(lines(ab)[1:3]) == ["SAME PARA r3 version", "SAME PARA r4 version"]


def test_concurrent_edits_of_different_lines_both_survive():
    base = typed("first\n\nsecond\n\nthird\n")
    a = merge(base, replace_lines(base, [(0, 1, ["FIRST"])], "r1"))
    b = merge(base, replace_lines(base, [(4, 5, ["THIRD", "more"])], "r2"))
    assert value(merge(a, b)) == "FIRST\n\nsecond\n\nTHIRD\nmore\n"


def test_a_delta_holds_only_the_new_items():
    base = typed("\n".join(["x" * 50] * 200))
    delta = replace_lines(base, [(100, 100, ["!"])], "r2")
    assert len(delta.update) < 100
    assert lines(merge(base, delta))[100] == "!"


def test_no_edit_is_the_empty_delta_and_a_pure_deletion_is_not():
    base = typed("a\nb\nc")
    assert replace_lines(base, [], "r1") == EMPTY
    assert replace_lines(base, [(1, 1, [])], "r1") == EMPTY
    assert value(merge(base, replace_lines(base, [(0, 1, [])], "r1"))) == "b\nc"


@pytest.mark.parametrize("edits", [[(0, 9, [])], [(2, 1, [])], [(0, 2, []), (1, 3, ["x"])],
                                   [(-1, 0, ["x"])], [(0, 1, "x")], [(0, 1, ["a\nb"])],
                                   [(0, 0, [3])]])
def test_bad_splices_are_precondition_errors(edits):
    with pytest.raises(PreconditionError):
        replace_lines(typed("a\nb\nc"), edits, "r1")


def test_a_version_1_text_reads_merges_and_moves_into_lines_once():
    old = legacy("intro\nSAME PARA version\nend")
    assert value(old) == "intro\nSAME PARA version\nend" and text_body.encode(old)[1] == 1
    assert text_body.decode(text_body.encode(old)) == old
    a = merge(old, replace_lines(old, [(1, 2, ["r3"])], "r3"))
    b = merge(old, replace_lines(old, [(2, 3, ["END"])], "r4"))
    both = merge(a, b)
    # Both replicas moved the same text into lines with the same items: one copy.
    assert value(both) == "intro\nr3\nEND" and text_body.encode(both)[1] == 2
    assert text_body.decode(text_body.encode(both)) == both


def test_decode_rejects_bytes_that_are_not_a_yjs_update_or_a_future_version():
    good = text_body.encode(typed("hi"))
    assert text_body.decode(good) == typed("hi")
    with pytest.raises(InvalidEncodingError):
        text_body.decode(good[:2] + b"\xc4\x03abc")  # msgpack bin, not an update
    with pytest.raises(InvalidEncodingError):
        text_body.decode(good[:2] + b"\xa3abc")  # a string, not bytes
    with pytest.raises(UnsupportedVersionError):
        text_body.decode(good[:1] + b"\x03" + good[2:])


def test_client_ids_are_js_safe_and_stable():
    assert text_body.client_id("r1") == text_body.client_id("r1") < 2**53
    assert text_body.client_id("r1") != text_body.client_id("r2")


@st.composite
def edits_for(draw, count: int) -> list[tuple[int, int, list[str]]]:
    """Up to three non-overlapping line splices of ``count`` lines."""
    cuts = sorted(draw(st.lists(st.integers(0, count), min_size=0, max_size=6)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return [(s, e, draw(st.lists(st.text(ALPHABET, max_size=4), max_size=2)))
            for s, e in pairs]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), start=st.sampled_from(["", "one\ntwo", "legacy\ntext"]))
def test_random_concurrent_edits_converge_to_identical_bytes_in_any_merge_order(data, start):
    replicas = ["r1", "r2", "r3"]
    first = legacy(start) if start.startswith("legacy") else typed(start) if start else EMPTY
    states = dict.fromkeys(replicas, first)
    seen = [first]
    for _ in range(data.draw(st.integers(1, 15), label="steps")):
        r = data.draw(st.sampled_from(replicas), label="replica")
        if data.draw(st.booleans(), label="exchange?"):
            states[r] = merge(states[r], states[data.draw(st.sampled_from(replicas))])
        else:
            edits = data.draw(edits_for(len(lines(states[r]))), label="edits")
            delta = replace_lines(states[r], edits, r)
            seen.append(delta)
            states[r] = merge(states[r], delta)
        seen.append(states[r])
    a, b, c = (data.draw(st.sampled_from(seen)) for _ in range(3))
    assert merge(a, b).update == merge(b, a).update, "merge bytes depend on order"
    assert merge(merge(a, b), c).update == merge(a, merge(b, c)).update, "not associative"
    assert merge(merge(a, b), b) == merge(a, b), "not absorbing"
    order = data.draw(st.permutations(replicas), label="order")
    total = EMPTY
    for r in order:
        total = merge(total, states[r])
    finals = {text_body.encode(merge(states[r], total)) for r in replicas}
    assert len(finals) == 1
    doc = pycrdt.Doc()
    doc.apply_update(total.update)
    terminated = str(doc.get("lines", type=pycrdt.Text))
    assert terminated == "" or terminated.endswith("\n"), "a merge split a line"
