import pytest

from repoctx.errors import InvalidKeyError, WrongTreeError
from repoctx.trees import BY_NAME, MAX_KEY_BYTES, lmdb_key, make_key, parse_key, route, tree_of


def test_keys_round_trip_and_route_to_their_tree():
    key = make_key("demo", "file", "src/app/main.py")
    assert key == "repo/demo/file/src/app/main.py"
    assert parse_key(key).family == "file" and parse_key(key).rest == "src/app/main.py"
    assert tree_of(key).name == "repo-context-structural"
    assert tree_of(make_key("demo", "symbol", "pkg.mod.Cls")).name == "repo-context-symbol"
    assert tree_of(make_key("demo", "mem", "topic/id1")).name == "repo-context-memory"
    assert tree_of(make_key("demo")).name == "repo-context-structural"
    assert parse_key("repo/demo").family == ""


@pytest.mark.parametrize("bad", ["", "repo", "repo//file/x", "repo/demo/nofamily/x",
                                 "repo/demo/file/", "other/demo/file/x", "repo/de mo/file/x"])
def test_malformed_keys_are_rejected(bad):
    with pytest.raises(InvalidKeyError):
        parse_key(bad)


def test_make_key_rejects_bad_parts():
    for args in (("bad/id", "file", "x"), ("demo", "nope", "x"), ("demo", "file", "a\nb"),
                 ("demo", "file", "")):
        with pytest.raises(InvalidKeyError):
            make_key(*args)


def test_long_keys_are_hashed_with_a_readable_prefix():
    key = make_key("demo", "file", "d/" * 300 + "é.py")
    raw = lmdb_key(key)
    assert len(raw) <= MAX_KEY_BYTES and raw.startswith(b"repo/demo/file/d/d/")
    assert raw[-25:-24] == b"~" and lmdb_key(key) == raw
    assert lmdb_key(key + "x") != raw


def test_routing_rejects_a_key_in_the_wrong_tree():
    route("repo/demo/file/a.py", BY_NAME["repo-context-structural"])
    with pytest.raises(WrongTreeError, match="repo-context-symbol"):
        route("repo/demo/file/a.py", BY_NAME["repo-context-symbol"])
