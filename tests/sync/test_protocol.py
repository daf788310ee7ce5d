"""Identity checks and the request handlers of one replica."""

from __future__ import annotations

import pytest

from repoctx import FORMAT_VERSION, open_store
from repoctx.errors import SyncError, SyncRefusedError
from repoctx.sync import PROTOCOL, Responder, check_peer, identity
from repoctx.sync.protocol import known_repos
from tests.conftest import lww_record

from .helpers import exchange, new_store


def ident(**over):
    return {"protocol": PROTOCOL, "format": FORMAT_VERSION, "repoId": "demo", "repoIds": ["demo"],
            "replicaId": "ra"} | over


def test_a_newer_store_format_is_refused_naming_both_versions():
    newer = FORMAT_VERSION + 1
    with pytest.raises(SyncRefusedError,
                       match=f"store format {newer}, newer than format {FORMAT_VERSION}"):
        check_peer(ident(), ident(format=newer, replicaId="rb"), "peer-b")


def test_another_repository_is_refused():
    with pytest.raises(SyncRefusedError, match="holds repository other, not demo"):
        check_peer(ident(), ident(repoId="other", repoIds=["other"], replicaId="rb"), "b")


def test_a_fresh_peer_without_data_is_accepted():
    check_peer(ident(), ident(repoId="dirname", repoIds=[], replicaId="rb"), "b")


def test_the_same_replica_id_is_refused_because_dots_would_collide():
    with pytest.raises(SyncRefusedError, match="replica ra too"):
        check_peer(ident(), ident(), "b")


def test_another_protocol_is_refused():
    with pytest.raises(SyncRefusedError, match="protocol 99"):
        check_peer(ident(), ident(protocol=99, replicaId="rb"), "b")


def test_known_repos_come_from_roots_and_keys(tmp_path):
    s = new_store(tmp_path / "a", "ra")
    assert known_repos(s) == []
    s.merge(s.key("mem", "m"), lww_record(s, body=1))
    assert known_repos(s) == ["demo"]
    assert identity(s)["repoIds"] == ["demo"]


def test_stores_of_two_repositories_refuse_each_other(tmp_path):
    a = new_store(tmp_path / "a", "ra", repo_id="demo")
    b = new_store(tmp_path / "b", "rb", repo_id="other")
    a.merge(a.key(), lww_record(a, name="demo"))
    b.merge(b.key(), lww_record(b, name="other"))
    with pytest.raises(SyncRefusedError, match="holds repository demo, not other"):
        exchange(a, b)  # the peer refuses the caller first
    b.close()
    with pytest.raises(SyncRefusedError, match="holds repository other, not demo"):
        check_peer(identity(a), identity(open_store(tmp_path / "b", repo_id="other")), "b")


def test_the_responder_checks_its_caller_and_rejects_bad_requests(tmp_path):
    r = Responder(new_store(tmp_path / "a", "ra"))
    with pytest.raises(SyncRefusedError):
        r.handle("hello", ident(format=7, replicaId="rz"))
    with pytest.raises(SyncError, match="unknown sync request"):
        r.handle("drop-everything", {})
    with pytest.raises(SyncError, match="not a replicated tree"):
        r.handle("segments", {"trees": ["repo-context-vector-index"]})
    with pytest.raises(SyncError, match="malformed"):
        r.handle("fetch", {})
