"""The collaborative text body: splices, byte offsets, concurrent edits, canonical bytes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import record, text_body
from repoctx.crdt.text_body import EMPTY, merge, splice, value
from repoctx.errors import InvalidEncodingError, PreconditionError

ALPHABET = "ab é😀\n中"


def typed(text: str, replica: str = "r1") -> text_body.TextBody:
    return splice(EMPTY, [(0, 0, text)], replica)


def test_empty_reads_as_empty_text_and_is_a_tombstone_value():
    assert value(EMPTY) == ""
    assert record.is_tombstone(record.write({"body": EMPTY}, 1))


def test_offsets_are_code_points_even_around_multibyte_characters():
    state = typed("héllo 😀 world")
    state = merge(state, splice(state, [(7, 7, "X"), (0, 1, "H")], "r1"))
    assert value(state) == "Héllo 😀X world"
    state = merge(state, splice(state, [(6, 8, "")], "r1"))
    assert value(state) == "Héllo  world"


def test_concurrent_edits_of_different_paragraphs_both_survive():
    text = "first paragraph\n\nsecond paragraph\n\nthird paragraph\n"
    base = typed(text)
    a = merge(base, splice(base, [(0, 5, "FIRST")], "r1"))
    third = text.index("third")
    b = merge(base, splice(base, [(third, third + 5, "THIRD")], "r2"))
    ab, ba = merge(a, b), merge(b, a)
    assert ab == ba and text_body.encode(ab) == text_body.encode(ba)
    assert value(ab) == "FIRST paragraph\n\nsecond paragraph\n\nTHIRD paragraph\n"


def test_a_delta_holds_only_the_new_items():
    base = typed("x" * 5000)
    delta = splice(base, [(2500, 2500, "!")], "r2")
    assert len(delta.update) < 100
    assert value(merge(base, delta)) == "x" * 2500 + "!" + "x" * 2500


def test_no_edit_is_the_empty_delta_and_a_pure_deletion_is_not():
    base = typed("abc")
    assert splice(base, [], "r1") == EMPTY
    assert splice(base, [(1, 1, "")], "r1") == EMPTY
    assert value(merge(base, splice(base, [(0, 1, "")], "r1"))) == "bc"


@pytest.mark.parametrize("edits", [[(0, 9, "")], [(2, 1, "")], [(0, 2, ""), (1, 3, "x")],
                                   [(-1, 0, "x")]])
def test_bad_splices_are_precondition_errors(edits):
    with pytest.raises(PreconditionError):
        splice(typed("abc"), edits, "r1")


def test_decode_rejects_bytes_that_are_not_a_yjs_update():
    good = text_body.encode(typed("hi"))
    assert text_body.decode(good) == typed("hi")
    with pytest.raises(InvalidEncodingError):
        text_body.decode(good[:2] + b"\xc4\x03abc")  # msgpack bin, not an update
    with pytest.raises(InvalidEncodingError):
        text_body.decode(good[:2] + b"\xa3abc")  # a string, not bytes


def test_client_ids_are_js_safe_and_stable():
    assert text_body.client_id("r1") == text_body.client_id("r1") < 2**53
    assert text_body.client_id("r1") != text_body.client_id("r2")


@st.composite
def edits_for(draw, text: str) -> list[tuple[int, int, str]]:
    """Up to three non-overlapping splices of ``text``."""
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), min_size=0, max_size=6)))
    pairs = list(zip(cuts[::2], cuts[1::2], strict=False))
    return [(s, e, draw(st.text(ALPHABET, max_size=4))) for s, e in pairs]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_concurrent_edits_converge_to_identical_bytes_in_any_merge_order(data):
    replicas = ["r1", "r2", "r3"]
    states = dict.fromkeys(replicas, EMPTY)
    seen = [EMPTY]
    for _ in range(data.draw(st.integers(1, 15), label="steps")):
        r = data.draw(st.sampled_from(replicas), label="replica")
        if data.draw(st.booleans(), label="exchange?"):
            states[r] = merge(states[r], states[data.draw(st.sampled_from(replicas))])
        else:
            edits = data.draw(edits_for(value(states[r])), label="edits")
            delta = splice(states[r], edits, r)
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
    finals = {merge(states[r], total).update for r in replicas}
    assert len(finals) == 1
