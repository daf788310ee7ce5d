"""Request bodies are decoded against their operation's shape and checked field by field."""

from __future__ import annotations

import time

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repoctx.errors import SyncError, SyncRequestError
from repoctx.sync import Responder
from repoctx.sync.requests import (
    OPS,
    SMALL_BODY,
    deadline_after,
    decode_request,
    key_repo,
)

from .helpers import new_store

TREE = "repo-context-memory"


def refused(op: str, body: object) -> SyncRequestError:
    with pytest.raises(SyncRequestError) as caught:
        decode_request(op, msgpack.packb(body) if not isinstance(body, bytes) else body)
    return caught.value


def test_good_requests_come_back_as_they_were_sent():
    hello = {"protocol": 1, "format": 3, "repoId": "demo", "repoIds": ["demo"],
             "replicaId": "ra"}
    assert decode_request("hello", msgpack.packb(hello)) == hello
    assert decode_request("hello", b"") == {}
    assert decode_request("buckets", msgpack.packb({"want": {TREE: [0, 63]}})) == \
        {"want": {TREE: [0, 63]}}
    push = {"records": [[TREE, "repo/demo/mem/x", b"\x80"]]}
    assert decode_request("push", msgpack.packb(push, use_bin_type=True)) == push
    fetch = {"want": {TREE: ["repo/demo/mem/x", "repo/demo/mem/y"]}}
    assert decode_request("fetch", msgpack.packb(fetch)) == fetch


@pytest.mark.parametrize(("op", "body", "field"), [
    ("hello", {"format": float("inf")}, "format"),
    ("hello", {"format": True}, "format"),
    ("hello", {"protocol": 2 ** 64 - 1}, "protocol"),
    ("hello", {"repoIds": ["a"] * 2000}, "repoIds"),
    ("buckets", {"want": {TREE: [64]}}, "want"),
    ("entries", {"want": {TREE: [2 ** 63]}}, "want"),
    ("entries", {"want": []}, "want"),
    ("fetch", {"want": {TREE: ["not/a/key"]}}, "want"),
    ("fetch", {"want": {TREE: ["repo/demo/mem/" + "x" * 600]}}, "want"),
    ("push", {"records": [[TREE, "repo/demo/mem/x", b"", 4]]}, "records"),
    ("push", {"records": [["nope", "repo/demo/mem/x", b""]]}, "records"),
    ("push", {"extra": 1}, "body"),
    ("segments", {"trees": [[]]}, "trees[]"),  # Hypothesis found it: a list is unhashable
    ("push", b"\x81\xa7records\x91\x93" + b"\xb2" + TREE.encode() + b"\xc1", "records"),
])
def test_a_bad_field_is_a_400_naming_it(op, body, field):
    error = refused(op, body)
    assert error.status == 400 and str(error).startswith(field), str(error)


def test_size_and_shape_bounds():
    assert refused("hello", b"\x90" * (SMALL_BODY + 1)).status == 413
    many = b"\xdd" + (4097).to_bytes(4, "big") + b"\x90" * 4097
    assert "4096 arrays" in str(refused("hello", many))
    huge = b"\x81\xa7records\xdd\xff\xff\xff\xff\x93"
    assert "more than the body holds" in str(refused("push", huge))
    assert "after its message" in str(refused("fetch", msgpack.packb({"want": {}}) + b"\x00"))
    assert refused("nope", {}).status == 404
    assert key_repo("repo/evil/mem/x") == "evil" and key_repo("x/y") is None


def test_a_bulk_body_stops_at_its_deadline():
    body = msgpack.packb({"want": {TREE: [f"repo/demo/mem/k{i}" for i in range(20000)]}})
    deadline = deadline_after(0.0)
    time.sleep(0.01)
    with pytest.raises(SyncRequestError) as caught:
        decode_request("fetch", body, deadline)
    assert caught.value.status == 504


values = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 64, 2 ** 64 - 1) | st.floats()
    | st.text(max_size=8) | st.binary(max_size=8) | st.sampled_from([TREE, "repo/demo/mem/x"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["want", "records", "trees", "format", "protocol",
                                       "repoIds", TREE]) | st.text(max_size=4), inner,
                      max_size=4),
    max_leaves=16)


@pytest.fixture(scope="module")
def responder(tmp_path_factory):
    store = new_store(tmp_path_factory.mktemp("fuzz"), "ra")
    yield Responder(store)
    store.close()


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(sorted(OPS)), body=values)
def test_any_body_is_answered_or_refused_with_a_4xx(responder, op, body):
    """What the decoder lets through, the responder answers or refuses as a sync error."""
    try:
        data = msgpack.packb(body, use_bin_type=True)
    except (OverflowError, ValueError):
        return
    try:
        responder.handle(op, decode_request(op, data))
    except SyncRequestError as exc:
        assert 400 <= exc.status < 500
    except SyncError:
        pass  # a refusal or a malformed request: the server answers 400/403
