"""crdt/registry: every tag has its module, every state finds its module."""

import pytest

from repoctx.crdt import MODULES, module_for_state, module_for_tag, record, tags
from repoctx.errors import InvalidEncodingError

TAGS = {name: v for name, v in vars(tags).items()
        if name.isupper() and name != "FORMAT_VERSION"}


def test_registry_covers_every_tag():
    assert set(MODULES) == set(TAGS.values())


@pytest.mark.parametrize("tag", sorted(MODULES))
def test_a_modules_encodings_start_with_its_tag(tag):
    module = module_for_tag(tag)
    state = module.empty()
    assert module.encode(state)[0] == tag
    assert module_for_state(state) is module


def test_unknown_tags_and_states_are_encoding_errors():
    with pytest.raises(InvalidEncodingError, match="unknown CRDT type tag 200"):
        module_for_tag(200)
    with pytest.raises(InvalidEncodingError, match="Record is not a CRDT state"):
        module_for_state(record.empty())
    with pytest.raises(InvalidEncodingError, match="int is not a CRDT state"):
        module_for_state(3)


def test_a_type_module_is_imported_when_its_tag_or_state_is_first_looked_up():
    from tests.conftest import loaded_by

    types = ("repoctx.crdt.or_map", "repoctx.crdt.text_body", "repoctx.crdt.ttl_set",
             "repoctx.crdt.or_flag", "repoctx.crdt.add_wins_set")
    assert loaded_by("from repoctx.crdt import record, registry", types) == []
    assert loaded_by("from repoctx.crdt import registry, tags; "
                     "registry.module_for_tag(tags.OR_MAP)", types) == ["repoctx.crdt.or_map"]
    # a state made by a module imported directly, never looked up by tag
    assert loaded_by("from repoctx.crdt import registry; import repoctx.crdt.ttl_set as t; "
                     "assert registry.module_for_state(t.empty()) is t", types) == [
        "repoctx.crdt.ttl_set"]
