"""crdt/tags: one byte per type, never shared."""

from repoctx.crdt import tags

TAGS = {name: v for name, v in vars(tags).items()
        if name.isupper() and name != "FORMAT_VERSION"}


def test_tags_are_unique_bytes():
    assert len(TAGS) == 7
    assert len(set(TAGS.values())) == len(TAGS)
    assert all(isinstance(v, int) and 0 < v < 256 for v in TAGS.values())


def test_tags_never_move():
    # A stored encoding's first byte is its tag: renumbering would misread every store.
    assert TAGS == {"LWW_REGISTER": 1, "OR_FLAG": 2, "ADD_WINS_SET": 3, "OR_MAP": 4,
                    "TTL_SET": 5, "MAX_REGISTER": 6, "TEXT_BODY": 7}
    assert 0 < tags.FORMAT_VERSION < 256
