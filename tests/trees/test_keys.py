import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from repoctx.errors import InvalidKeyError, WrongTreeError
from repoctx.trees import (
    BY_NAME,
    MAX_KEY_BYTES,
    escape_name,
    key_name,
    lmdb_key,
    make_key,
    parse_key,
    route,
    tree_of,
    unescape_name,
)


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
    for args in (("bad/id", "file", "x"), ("demo", "nope", "x"), ("demo", "file", "")):
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


_HOSTILE_CHARS = st.one_of(
    st.sampled_from("%~/\\\t\n\r\x00\x1b\x7f0123456789abcdefABCDEF\u2215\uff0f\u00e9"),
    st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),  # os.fsdecode's stand-ins
    st.characters(blacklist_categories=("Cs",)),
)


@given(st.text(_HOSTILE_CHARS, min_size=1, max_size=40))
def test_escaping_a_name_is_reversible_and_leaves_no_control_or_stand_in(name):
    escaped = escape_name(name)
    assert unescape_name(escaped) == name
    assert not re.search(r"[\x00-\x1f\x7f\ud800-\udfff]", escaped)
    escaped.encode()  # always UTF-8
    key = make_key("demo", "file", name)
    assert parse_key(key).rest == name
    assert tree_of(key).name == "repo-context-structural"


@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40))
def test_a_name_without_anything_to_escape_keeps_its_key(name):
    if not re.search(r"%[0-9A-Fa-f]{2}", name):
        assert escape_name(name) == name


@pytest.mark.parametrize(("name", "escaped"), [
    ("a\tb.py", "a%09b.py"), ("new\nline.py", "new%0Aline.py"), ("100%.txt", "100%.txt"),
    ("a%41.py", "a%2541.py"), ("bad\udcff.py", "bad%FF.py"), ("p%%0a", "p%%250a"),
    ("~home", "~home"), ("del\x7f", "del%7F"),
])
def test_escapes_are_percent_and_two_hex_digits(name, escaped):
    assert escape_name(name) == escaped
    assert make_key("demo", "file", name) == "repo/demo/file/" + escaped


def test_a_key_holding_a_raw_control_character_is_not_in_the_grammar():
    with pytest.raises(InvalidKeyError, match="control character"):
        parse_key("repo/demo/file/a\tb.py")


@pytest.mark.parametrize("name", ["a.py", "a/b.py", "a\tb.py", "a%41/b.py", "bad\udcff.py"])
def test_key_name_is_the_name_a_key_was_made_from(name):
    key = make_key("demo", "file", name)
    assert key_name(key) == name == parse_key(key).rest
