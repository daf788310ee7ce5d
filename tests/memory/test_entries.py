"""remember / recall / update / forget: shapes, TTL, bad input, and two replicas."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from repoctx import memory, open_store
from repoctx.crdt import record
from repoctx.errors import ToolError
from repoctx.trees import BY_FAMILY

from .conftest import NOW, key

MEM = BY_FAMILY["mem"]
K = key("mem", "design/auth")


def stored(store) -> dict[str, bytes]:
    """Every record of the memory tree, hidden ones too, as canonical bytes."""
    with store.snapshot() as snap:
        return {k: record.encode(r) for k, r in snap.scan_tree(MEM, include_hidden=True)}


def exchange(a, b) -> None:
    """Ship every memory record of ``a`` into ``b`` and back (anti-entropy in full)."""
    for src, dst in ((a, b), (b, a)):
        for k, rec in _rows(src):
            dst.merge(k, rec)


def _rows(store):
    with store.snapshot() as snap:
        return list(snap.scan_tree(MEM, include_hidden=True))


def test_remember_then_recall_shows_every_field(store):
    got = memory.remember(store, "design", "auth", kind="decision", title="Use JWT",
                          body="Tokens.\n", author="ada", provenance="PR 12", tags=["a", "b"],
                          add_links={"see": [key("mem", "design/other")]})
    assert got == {"key": K, "created": True, "expiresAtUtc": None, "linksAdded": 1,
                   "notIndexed": []}
    view = memory.recall(store, K)
    assert view["exists"] and view["kind"] == "decision"
    assert (view["topic"], view["id"]) == ("design", "auth")
    assert view["fields"]["title"] == "Use JWT" and view["fields"]["body"] == "Tokens.\n"
    assert view["fields"]["author"] == "ada" and view["fields"]["provenance"] == "PR 12"
    assert view["fields"]["createdAt"].endswith("Z")
    assert view["tags"] == ["a", "b"]
    assert view["links"] == {"see": [key("mem", "design/other")]}
    assert view["expiresAtUtc"] is None and view["remainingSeconds"] is None
    assert view["revisions"] == 1


def test_an_id_is_generated_and_kind_defaults_to_note(store):
    first = memory.remember(store, "inbox")["key"]
    second = memory.remember(store, "inbox")["key"]
    assert first != second and first.startswith("repo/demo/mem/inbox/")
    assert memory.recall(store, first)["kind"] == "note"


def test_recall_of_an_unknown_key_says_it_does_not_exist(store):
    view = memory.recall(store, K)
    assert view["exists"] is False and view["fields"] == {} and view["stale"] is False


def test_remember_on_an_existing_entry_adds_to_it_but_keeps_its_kind(store):
    memory.remember(store, "design", "auth", kind="decision", title="T")
    again = memory.remember(store, "design", "auth", tags=["x"])
    assert again["created"] is False
    assert memory.recall(store, K)["tags"] == ["x"]
    with pytest.raises(ToolError, match="set on create"):
        memory.remember(store, "design", "auth", kind="note")


def test_update_writes_only_the_given_fields(store):
    memory.remember(store, "design", "auth", title="T", author="ada", body="one\n")
    got = memory.update(store, K, {"title": "T2"}, add_tags=["new"])
    assert got["updated"] == ["title"] and got["tagsAdded"] == ["new"]
    view = memory.recall(store, K)
    assert view["fields"]["title"] == "T2" and view["fields"]["author"] == "ada"
    assert view["fields"]["body"] == "one\n" and view["revisions"] == 2


def test_update_of_a_missing_entry_says_remember_it_first(store):
    with pytest.raises(ToolError, match="remember it first"):
        memory.update(store, K, {"title": "x"})
    assert stored(store) == {}


def test_removing_an_absent_tag_or_link_is_a_no_op(store):
    memory.remember(store, "design", "auth")
    before = stored(store)
    got = memory.update(store, K, remove_tags=["nope"],
                        remove_links={"see": [key("mem", "a/b")]})
    assert got["tagsRemoved"] == [] and got["linksRemoved"] == 0
    assert stored(store) == before


def test_forget_makes_a_tombstone_that_compaction_reaps(store):
    memory.remember(store, "design", "auth", title="T", body="b", tags=["x"],
                    add_links={"see": [key("mem", "a/b")]})
    assert memory.forget(store, K)["forgotten"] is True
    assert memory.recall(store, K)["exists"] is False
    (rec,) = (r for _, r in _rows(store))
    assert record.is_tombstone(rec)
    assert memory.forget(store, K)["existed"] is False
    store.gc(now_ms=int(time.time() * 1000) + MEM.grace_ms + 60_000)
    assert stored(store) == {}


def test_remember_after_forget_brings_the_entry_back(store):
    memory.remember(store, "design", "auth", title="old", tags=["x"])
    memory.forget(store, K)
    assert memory.remember(store, "design", "auth", title="new")["created"] is True
    view = memory.recall(store, K)
    assert view["fields"]["title"] == "new" and view["tags"] == []


# --- TTL -------------------------------------------------------------------------------

def test_an_expired_entry_is_invisible_and_reaped_by_compaction(store):
    memory.remember(store, "t", "i", title="ttl", body="expiring note", ttl_seconds=60,
                    now_ms=NOW)
    k = key("mem", "t/i")
    live = memory.recall(store, k, now_ms=NOW + 1_000)
    assert live["exists"] and live["remainingSeconds"] == 59
    assert live["expiresAtUtc"] == "2030-03-17T17:47:40.000Z"
    later = NOW + 60_000
    assert memory.recall(store, k, now_ms=later)["exists"] is False
    assert memory.scan(store, "memory", now_ms=later)["entries"] == []
    assert memory.list_topics(store, now_ms=later)["total"] == 0
    assert memory.memory_hits(store, "expiring", 5, now_ms=later) == []
    assert memory.memory_hits(store, "expiring", 5, now_ms=NOW)  # still found before
    assert store.gc(now_ms=later + 1)[MEM.name] == 0  # within the grace period
    assert stored(store)
    assert store.gc(now_ms=later + MEM.grace_ms + 1)[MEM.name] == 1
    assert stored(store) == {}


def test_a_lapse_cannot_shorten_a_later_expiry(store):
    memory.remember(store, "t", "i", ttl_seconds=3600, now_ms=NOW)
    k = key("mem", "t/i")
    got = memory.forget(store, k, lapse=True, lapse_seconds=60, now_ms=NOW)
    assert got["lapsed"] and record.expires_ms(store.get(k)) == NOW + 3_600_000
    assert got["expiresAtUtc"] == memory.views.iso(NOW + 3_600_000)
    memory.forget(store, k, lapse=True, lapse_seconds=7200, now_ms=NOW)
    assert record.expires_ms(store.get(k)) == NOW + 7_200_000


def test_a_lapse_gives_an_entry_without_ttl_an_expiry(store):
    memory.remember(store, "t", "i")
    k = key("mem", "t/i")
    now = int(time.time() * 1000)
    memory.forget(store, k, lapse=True, lapse_seconds=60, now_ms=now)
    assert memory.recall(store, k, now_ms=now + 59_000)["exists"] is True
    assert memory.recall(store, k, now_ms=now + 60_000)["exists"] is False


def test_update_keeps_the_remaining_ttl_and_remember_only_extends_it(store):
    memory.remember(store, "t", "i", ttl_seconds=100, now_ms=NOW)
    k = key("mem", "t/i")
    got = memory.update(store, k, {"title": "x"}, now_ms=NOW + 40_000)
    assert got["remainingSeconds"] == 60
    memory.remember(store, "t", "i", ttl_seconds=10, now_ms=NOW + 40_000)  # shorter: ignored
    assert record.expires_ms(store.get(k)) == NOW + 100_000


def test_remembering_onto_an_expired_unreaped_key_is_refused(store):
    memory.remember(store, "t", "i", ttl_seconds=1, now_ms=NOW)
    with pytest.raises(ToolError, match="expired"):
        memory.remember(store, "t", "i", now_ms=NOW + 5_000)


# --- bad input: a ToolError and nothing written ----------------------------------------

BAD_REMEMBER = [
    ({"kind": "idea"}, "kind"),
    ({"ttl_seconds": 0}, "ttlSeconds"),
    ({"ttl_seconds": -5}, "ttlSeconds"),
    ({"body": "x" * (1 << 20)}, "body"),
    ({"body": "é" * 40_000}, "body"),
    ({"topic": "a/b"}, "topic"),
    ({"topic": "a\nb"}, "topic"),
    ({"topic": ""}, "topic"),
    ({"entry_id": "x/y"}, "id"),
    ({"entry_id": "x\x00y"}, "id"),
    ({"entry_id": "x\x7f"}, "id"),
    ({"entry_id": "x\x85"}, "id"),
    ({"tags": ["ok", "bad\ttag"]}, "tags"),
    ({"add_links": {"see": ["not a key"]}}, "links"),
    ({"add_links": {"see": ["repo/demo/pkg/x"]}}, "links"),
    ({"add_links": {"see": ["repo/other/file/x.py"]}}, "links"),
    ({"add_links": {"see": ["repo/demo/mem/only-topic"]}}, "key"),
    ({"add_links": {"bad rel": ["repo/demo/file/x.py"]}}, "relation"),
    ({"add_links": {"see": "repo/demo/file/x.py"}}, "list"),
    ({"title": 12}, "title"),
]


@pytest.mark.parametrize(("change", "message"), BAD_REMEMBER,
                         ids=[m + str(i) for i, (_, m) in enumerate(BAD_REMEMBER)])
def test_bad_remember_input_is_a_tool_error_with_nothing_written(store, change, message):
    args = {"topic": "t", "entry_id": "i", **change}
    writes = store.trees.writes
    with pytest.raises(ToolError, match=message):
        memory.remember(store, args.pop("topic"), args.pop("entry_id"), **args)
    assert stored(store) == {} and store.trees.writes == writes


MALFORMED_KEYS = ["nope", "repo/demo", "repo/demo/file/app.py", "repo/other/mem/t/i",
                  "repo/demo/mem/t", "repo/demo/mem/t/i/j", "repo/demo/mem/t/\x01",
                  "repo/demo/mem//i", "repo/bad id/mem/t/i"]


@pytest.mark.parametrize("bad", MALFORMED_KEYS)
def test_malformed_keys_are_tool_errors_with_nothing_written(store, bad):
    memory.remember(store, "t", "i", title="keep")
    before = stored(store)
    for call in (lambda: memory.recall(store, bad), lambda: memory.update(store, bad, {}),
                 lambda: memory.forget(store, bad)):
        with pytest.raises(ToolError):
            call()
    assert stored(store) == before


@pytest.mark.parametrize(("fields", "message"), [
    ({"kind": "decision"}, "set on create"), ({"createdAt": 1}, "set on create"),
    ({"colour": "red"}, "unknown field"), ({"title": 5}, "title"),
    ({"body": "x" * 70_000}, "body"), ({"body": 5}, "body"),
])
def test_bad_update_fields_are_tool_errors_with_nothing_written(store, fields, message):
    memory.remember(store, "t", "i", title="keep")
    before = stored(store)
    with pytest.raises(ToolError, match=message):
        memory.update(store, key("mem", "t/i"), fields, add_tags=["would-be-written"])
    assert stored(store) == before


def test_bad_lapse_seconds_is_a_tool_error(store):
    memory.remember(store, "t", "i")
    before = stored(store)
    with pytest.raises(ToolError, match="lapseSeconds"):
        memory.forget(store, key("mem", "t/i"), lapse=True, lapse_seconds=0)
    assert stored(store) == before


def test_a_body_of_exactly_64_kib_is_accepted(store):
    memory.remember(store, "t", "i", body="x" * 65_536)
    assert len(memory.recall(store, key("mem", "t/i"))["fields"]["body"]) == 65_536


# --- two replicas ------------------------------------------------------------------------

PARAGRAPHS = "Intro paragraph.\n\nMiddle paragraph.\n\nClosing paragraph.\n"


@pytest.fixture
def replicas(tmp_path: Path):
    a = open_store(tmp_path / "a", repo_id="demo", replica_id="replica-a")
    b = open_store(tmp_path / "b", repo_id="demo", replica_id="replica-b")
    yield a, b
    a.close()
    b.close()


def test_two_replicas_converge_keeping_both_paragraph_edits_and_the_add(replicas):
    a, b = replicas
    memory.remember(a, "design", "auth", title="T0", body=PARAGRAPHS, tags=["x"])
    exchange(a, b)
    assert stored(a) == stored(b)
    # Concurrent: neither replica sees the other's edits until the exchange.
    memory.update(a, K, {"body": PARAGRAPHS.replace("Intro", "INTRO"), "title": "from a"},
                  remove_tags=["x"])
    time.sleep(0.005)  # b's title write is the later tick
    memory.update(b, K, {"body": PARAGRAPHS.replace("Closing", "CLOSING"), "title": "from b"},
                  add_tags=["x"])
    exchange(a, b)
    assert stored(a) == stored(b)
    view = memory.recall(a, K)
    assert view["fields"]["body"] == "INTRO paragraph.\n\nMiddle paragraph.\n\nCLOSING paragraph.\n"
    assert view["tags"] == ["x"]  # b's add was not observed by a's remove: add wins
    assert view["fields"]["title"] == "from b"  # later tick wins
    assert memory.recall(b, K) == view


def test_exchange_in_either_order_gives_identical_bytes(replicas, tmp_path):
    a, b = replicas
    memory.remember(a, "t", "one", body="a\n", tags=["p"])
    memory.remember(b, "t", "one", body="b\n", tags=["q"])
    memory.remember(b, "t", "two", title="only b")
    c = open_store(tmp_path / "c", repo_id="demo", replica_id="replica-c")
    try:
        for src in (b, a):
            for k, rec in _rows(src):
                c.merge(k, rec)
        exchange(a, b)
        assert stored(a) == stored(b) == stored(c)
        assert memory.recall(a, key("mem", "t/one"))["tags"] == ["p", "q"]
    finally:
        c.close()


def test_forget_beats_a_concurrent_update_on_existence(replicas):
    a, b = replicas
    memory.remember(a, "design", "auth", title="T0")
    exchange(a, b)
    memory.forget(a, K)
    memory.update(b, K, add_tags=["late"])
    exchange(a, b)
    assert stored(a) == stored(b)
    assert memory.recall(a, K)["exists"] is False
    assert memory.recall(b, K)["exists"] is False
