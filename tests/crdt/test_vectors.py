"""Golden encodings: a change here is a format change and must bump the version."""

import json
from pathlib import Path

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
    typed = text_body.splice(text_body.empty(), [(0, 0, "hé")], "r1")
    edited = text_body.merge(typed, text_body.splice(typed, [(1, 2, "e!")], "r1"))
    return {
        "lww_register": (lww_register, lww_register.set_value(lww_register.empty(), "v", 5, "r1")),
        "max_register": (max_register, max_register.raise_to(max_register.empty(), 42)),
        "or_flag": (or_flag, f),
        "add_wins_set": (add_wins_set, s),
        "or_map": (or_map, m),
        "ttl_set": (ttl_set, ttl_set.add(ttl_set.empty(), "rcpt", 1000)),
        "text_body": (text_body, edited),
    }


VECTORS = [json.loads(line) for line in (HERE / "vectors.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("vector", VECTORS, ids=[v["type"] for v in VECTORS])
def test_golden_encoding(vector):
    module, state = golden_states()[vector["type"]]
    assert module.encode(state).hex() == vector["hex"]
    assert module.decode(bytes.fromhex(vector["hex"])) == state


def test_every_type_has_a_vector():
    assert {v["type"] for v in VECTORS} == set(golden_states())
