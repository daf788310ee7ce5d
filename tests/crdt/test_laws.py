"""One Hypothesis suite over every CRDT module: the join laws, the binary form, and
convergence of random replica histories checked against a plain model (the
observed-remove specification: a remove cancels exactly the adds it observed)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.crdt import MODULES, codec

REPLICAS = ("r1", "r2", "r3")
ELEMENTS = ("a", "b", "c")

# A model event: an add (also a put / enable / write) carries a unique id, its element,
# a payload, and the ids it supersedes; a remove carries the ids it observed.


@dataclass(frozen=True)
class Add:
    id: int
    element: str
    payload: Any
    supersedes: frozenset[int]


@dataclass(frozen=True)
class Remove:
    id: int
    observed: frozenset[int]


def live_adds(events: frozenset) -> list[Add]:
    dead = set()
    for e in events:
        dead |= e.supersedes if isinstance(e, Add) else e.observed
    return [e for e in events if isinstance(e, Add) and e.id not in dead]


def latest(adds: list[Add]) -> Any:
    return max(adds, key=lambda a: (a.payload[0], a.payload[1], codec.pack(a.payload[2]))).payload


@dataclass(frozen=True)
class Kind:
    """How to drive one CRDT module and what its model says it should read."""

    module: ModuleType
    name: str

    def model_value(self, events: frozenset) -> Any:
        adds = live_adds(events)
        if self.name == "add_wins_set":
            return frozenset(a.element for a in adds)
        if self.name == "or_flag":
            return bool(adds)
        if self.name == "or_map":
            keys = {a.element for a in adds}
            return {k: latest([a for a in adds if a.element == k])[2] for k in keys}
        if self.name == "lww_register":
            every = [e for e in events if isinstance(e, Add)]
            return latest(every)[2] if every else None
        if self.name == "ttl_set":
            return frozenset(a.element for a in every_add(events))
        if self.name == "max_register":
            every = every_add(events)
            return max((a.payload for a in every), default=None)
        if self.name == "text_body":  # which lines survive; their order is Yjs's
            return sorted(a.element for a in adds)
        raise AssertionError(self.name)

    def read(self, state: Any) -> Any:
        """What the model predicts of a state (a text's lines, not their order)."""
        got = self.module.value(state)
        return sorted(got.split("\n") if got else []) if self.name == "text_body" else got


def every_add(events: frozenset) -> list[Add]:
    return [e for e in events if isinstance(e, Add)]


KINDS = [Kind(m, m.__name__.rsplit(".", 1)[1]) for m in MODULES.values()]


def test_registry_lists_every_module():
    assert {k.name for k in KINDS} == {
        "add_wins_set", "or_flag", "or_map", "lww_register", "ttl_set", "max_register",
        "text_body",
    }


def test_every_module_exports_the_uniform_interface():
    for kind in KINDS:
        exported = set(kind.module.__all__)
        assert {"empty", "value", "merge", "encode", "decode"} <= exported, kind.name
        assert sorted(kind.module.__all__) == kind.module.__all__


def do_op(data, kind: Kind, state: Any, events: frozenset, replica: str, tick: int, ids):
    """Draw one operation valid in ``state``; return (delta, model event)."""
    m, name, nid = kind.module, kind.name, next(ids)
    present = [a for a in live_adds(events)]
    if name in ("add_wins_set", "or_map", "or_flag"):
        elements = sorted({a.element for a in present})
        if elements and data.draw(st.booleans(), label="remove?"):
            el = data.draw(st.sampled_from(elements), label="element")
            observed = frozenset(a.id for a in present if a.element == el)
            delta = (m.disable(state) if name == "or_flag" else m.remove(state, el))
            return delta, Remove(nid, observed)
        el = "flag" if name == "or_flag" else data.draw(st.sampled_from(ELEMENTS), label="el")
        sup = frozenset(a.id for a in present if a.element == el)
        if name == "add_wins_set":
            return m.add(state, el, replica), Add(nid, el, None, sup)
        if name == "or_flag":
            return m.enable(state, replica), Add(nid, el, None, sup)
        val = data.draw(st.integers(0, 3), label="value")
        return m.put(state, el, val, tick, replica), Add(nid, el, (tick, replica, val), sup)
    if name == "lww_register":
        val = data.draw(st.one_of(st.none(), st.integers(0, 3), st.text(max_size=2)))
        event = Add(nid, "", (tick, replica, val), frozenset())
        return m.set_value(state, val, tick, replica), event
    if name == "text_body":
        return text_op(data, m, state, present, replica, nid)
    if name == "ttl_set":
        el = data.draw(st.sampled_from(ELEMENTS), label="el")
        exp = data.draw(st.integers(0, 100), label="expiry")
        return m.add(state, el, exp), Add(nid, el, exp, frozenset())
    val = data.draw(st.integers(-5, 50), label="max")
    return m.raise_to(state, val), Add(nid, "", val, frozenset())


def unique_line(nid: int) -> str:
    """A line no other add uses: 2-, 3- and 4-byte UTF-8 characters in turn."""
    return chr((0x100, 0x4E00, 0x1F300)[nid % 3] + nid) * (1 + nid % 3)


def text_op(data, m: ModuleType, state: Any, present: list, replica: str, nid: int):
    """Insert a unique line somewhere, or delete one the replica sees."""
    lines = m.lines(state)
    if lines and data.draw(st.booleans(), label="delete?"):
        i = data.draw(st.integers(0, len(lines) - 1), label="at")
        observed = frozenset(a.id for a in present if a.element == lines[i])
        return m.replace_lines(state, [(i, i + 1, [])], replica), Remove(nid, observed)
    i = data.draw(st.integers(0, len(lines)), label="at")
    line = unique_line(nid)
    return m.replace_lines(state, [(i, i, [line])], replica), Add(nid, line, None, frozenset())


def model_ttl_check(kind: Kind, state: Any, events: frozenset) -> None:
    if kind.name == "ttl_set":
        for el in ELEMENTS:
            exps = [a.payload for a in every_add(events) if a.element == el]
            assert state.expiries.get(el) == (max(exps) if exps else None)


def run_history(data, kind: Kind, steps: int = 30):
    """Random interleaving of ops and state exchanges over three replicas."""
    m = kind.module
    states = {r: m.empty() for r in REPLICAS}
    models: dict[str, frozenset] = {r: frozenset() for r in REPLICAS}
    clocks = dict.fromkeys(REPLICAS, 0)
    ids = itertools.count()
    seen_states = [m.empty()]
    for _ in range(data.draw(st.integers(1, steps), label="steps")):
        r = data.draw(st.sampled_from(REPLICAS), label="replica")
        if data.draw(st.booleans(), label="exchange?"):
            src = data.draw(st.sampled_from(REPLICAS), label="from")
            states[r] = m.merge(states[r], states[src])
            models[r] = models[r] | models[src]
        else:
            # Ticks rise per replica but may coincide across replicas (same-tick writes).
            clocks[r] += data.draw(st.integers(1, 2), label="tick step")
            delta, event = do_op(data, kind, states[r], models[r], r, clocks[r], ids)
            states[r] = m.merge(states[r], delta)
            models[r] = models[r] | {event}
            seen_states.append(delta)
        assert kind.read(states[r]) == kind.model_value(models[r]), kind.name
        model_ttl_check(kind, states[r], models[r])
        seen_states.append(states[r])
    return states, models, seen_states


@settings(max_examples=150, deadline=None)
@given(data=st.data(), kind=st.sampled_from(KINDS))
def test_random_histories_match_the_model_and_converge(data, kind):
    m = kind.module
    states, models, _ = run_history(data, kind)
    order = data.draw(st.permutations(REPLICAS), label="final exchange order")
    total = m.empty()
    for r in order:
        total = m.merge(total, states[r])
    finals = [m.merge(states[r], total) for r in REPLICAS]
    encodings = {m.encode(s) for s in finals}
    assert len(encodings) == 1, "replicas did not converge to identical bytes"
    everything = frozenset().union(*models.values())
    assert kind.read(finals[0]) == kind.model_value(everything)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), kind=st.sampled_from(KINDS))
def test_join_laws_and_binary_form(data, kind):
    m = kind.module
    _, _, seen = run_history(data, kind, steps=20)
    a, b, c = (data.draw(st.sampled_from(seen), label=n) for n in "abc")
    assert m.merge(a, b) == m.merge(b, a), "merge is not commutative"
    assert m.encode(m.merge(a, b)) == m.encode(m.merge(b, a)), "merge bytes depend on order"
    assert m.merge(m.merge(a, b), c) == m.merge(a, m.merge(b, c)), "merge is not associative"
    assert m.merge(a, a) == a, "merge is not idempotent"
    assert m.merge(m.empty(), a) == a, "empty is not the identity"
    assert m.decode(m.encode(a)) == a, "decode(encode(x)) != x"
    assert m.merge(a, b) == m.merge(m.merge(a, b), b), "merge is not absorbing"
