"""Golden encodings: a change here is a format change and must bump the version."""

import json
from pathlib import Path

import pycrdt
import pytest

from repoctx.crdt import (
    add_wins_set,
    lww_register,
    max_register,
    or_flag,
    or_map,
    text_body,
    ttl_set,
)

HERE = Path(__file__).parent


def golden_states():
    s = add_wins_set.merge(add_wins_set.add(add_wins_set.empty(), "x", "r1"),
                           add_wins_set.add(add_wins_set.empty(), "y", "r2"))
    f = or_flag.enable(or_flag.empty(), "r1")
    m = or_map.put(or_map.empty(), "k", "d1", 9, "r1")
    typed = text_body.replace_lines(text_body.empty(), [(0, 0, ["hé", "x"])], "r1")
    edited = text_body.merge(typed, text_body.replace_lines(typed, [(1, 2, ["e!"])], "r1"))
    return {
        "lww_register": (lww_register, lww_register.set_value(lww_register.empty(), "v", 5, "r1")),
        "max_register": (max_register, max_register.raise_to(max_register.empty(), 42)),
        "or_flag": (or_flag, f),
        "add_wins_set": (add_wins_set, s),
        "or_map": (or_map, m),
        "ttl_set": (ttl_set, ttl_set.add(ttl_set.empty(), "rcpt", 1000)),
        "text_body": (text_body, edited),
        "text_body_v1": (text_body, legacy_text()),
    }


def legacy_text() -> text_body.TextBody:
    """A version 1 body (character-level Yjs text, as written before lines): "he!"."""
    doc = pycrdt.Doc(client_id=text_body.client_id("r1"), skip_gc=True)
    text = doc.get("body", type=pycrdt.Text)
    text.insert(0, "hé")
    typed = pycrdt.merge_updates(doc.get_update())
    before = doc.get_state()
    with doc.transaction():
        del text[1:3]
        text.insert(1, "e!")
    edit = pycrdt.merge_updates(doc.get_update(before))
    return text_body.merge(text_body.TextBody(typed), text_body.TextBody(edit))


VECTORS = [json.loads(line) for line in (HERE / "vectors.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["type"] for v in VECTORS])
def test_golden_encoding(vector):
    module, state = golden_states()[vector["type"]]
    assert module.encode(state).hex() == vector["hex"]
    assert module.decode(bytes.fromhex(vector["hex"])) == state


def test_a_version_1_text_still_reads_and_keeps_its_bytes():
    state = legacy_text()
    assert text_body.value(state) == "he!" and text_body.lines(state) == ["he!"]
    assert text_body.encode(state)[1] == 1


def test_every_type_has_a_vector():
    assert {v["type"] for v in VECTORS} == set(golden_states())
