"""Naming a peer: a store directory, a repository holding one, or a URL."""

from __future__ import annotations

import pytest

from repoctx import FORMAT_VERSION
from repoctx.errors import PeerUnavailableError, SyncRefusedError
from repoctx.sync import HttpTransport, LocalTransport, open_peer, store_directory, sync
from tests.conftest import lww_record

from .helpers import new_store, raw_trees


def test_a_peer_is_a_store_directory_or_a_repository(tmp_path):
    b = new_store(tmp_path / "b", "rb")
    b.close()
    assert store_directory(tmp_path / "b") == store_directory(tmp_path / "b" / ".repoctx")
    with pytest.raises(PeerUnavailableError, match="no repoctx store"):
        store_directory(tmp_path / "nowhere")


def test_sync_with_a_directory_peer(tmp_path):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    b.merge(b.key("mem", "y"), lww_record(b, body="b"))
    b.close()
    transport = open_peer(str(tmp_path / "b"), a)
    assert isinstance(transport, LocalTransport)
    try:
        assert sync(a, transport).received == 1
        assert raw_trees(a) == raw_trees(transport.responder.store)
    finally:
        transport.close()
    assert isinstance(open_peer("http://127.0.0.1:1", a), HttpTransport)


def test_a_peer_directory_of_a_newer_format_is_refused_before_it_is_opened(tmp_path):
    a, b = new_store(tmp_path / "a", "ra"), new_store(tmp_path / "b", "rb")
    with b.batch() as batch:
        batch.put_local("format", FORMAT_VERSION + 1)
    b.close()
    with pytest.raises(SyncRefusedError, match=f"format {FORMAT_VERSION + 1}, newer than "
                                               f"format {FORMAT_VERSION}"):
        open_peer(str(tmp_path / "b"), a)


def test_a_store_is_not_its_own_peer(tmp_path):
    a = new_store(tmp_path / "a", "ra")
    with pytest.raises(SyncRefusedError, match="this store itself"):
        open_peer(str(tmp_path / "a"), a)
