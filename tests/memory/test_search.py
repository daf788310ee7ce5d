"""Keyword hits over memory entries for the search to fuse."""

from __future__ import annotations

from repoctx import memory
from repoctx.memory.search import snippet, terms


def test_hits_rank_title_over_body_and_have_the_fusion_shape(store):
    memory.remember(store, "auth", "jwt", title="JWT rotation", body="We rotate keys weekly.")
    memory.remember(store, "ops", "notes", title="Ops", body="Mentions jwt once.",
                    tags=["infra"])
    hits = memory.memory_hits(store, "jwt", 5)
    assert [h["key"] for h in hits] == ["repo/demo/mem/auth/jwt", "repo/demo/mem/ops/notes"]
    first = hits[0]
    assert first["kind"] == "memory" and first["path"] is None
    assert set(first) >= {"score", "key", "kind", "path", "snippet", "reasons"}
    assert "title:jwt" in first["reasons"] and first["score"] > hits[1]["score"]


def test_tags_and_topics_match_and_k_bounds(store):
    for i in range(5):
        memory.remember(store, "infra", f"e{i}", body="text", tags=["deploy"])
    assert len(memory.memory_hits(store, "deploy", 3)) == 3
    assert memory.memory_hits(store, "infra", 10)[0]["reasons"] == ["topic:infra"]
    assert memory.memory_hits(store, "", 10) == []
    assert memory.memory_hits(store, "nothing-matches", 10) == []


def test_forgotten_entries_are_not_found(store):
    k = memory.remember(store, "t", "i", title="secret plan")["key"]
    memory.forget(store, k)
    assert memory.memory_hits(store, "secret", 5) == []


def test_terms_and_snippets():
    assert terms("Hello, hello WORLD") == ["hello", "world"]
    entry = memory.memory_record.Entry("k", "t", "i", "note", title="T",
                                       body="a" * 500 + " needle " + "b" * 500)
    got = snippet(entry, ["needle"])
    assert "needle" in got and got.startswith("…") and got.endswith("…")
