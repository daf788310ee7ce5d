import json

from repoctx.contextpull.sections.jsondoc import batch_label, section_json


def test_small_json_is_one_verbatim_section() -> None:
    doc = section_json("c.json", '{"a": 1}\n', 2000)
    assert doc is not None
    assert [(s.heading_path, s.text) for s in doc.sections] == [("c.json", '{"a": 1}')]


def test_nested_objects_use_key_paths() -> None:
    value = {"a": {"b": {"c": "x" * 1500, "d": "y" * 1500}}, "small": 1}
    doc = section_json("n.json", json.dumps(value), 2000)
    assert doc is not None
    paths = [s.heading_path for s in doc.sections]
    assert paths == ["a > b > c", "a > b > d", "small"]
    assert json.loads(doc.sections[0].text) == {"c": "x" * 1500}
    assert doc.sections[0].level == 3


def test_arrays_batched_and_titled_by_identity() -> None:
    users = [{"name": f"user{i}", "bio": "b" * 300} for i in range(20)]
    doc = section_json("u.json", json.dumps({"users": users}), 2000)
    assert doc is not None
    assert len(doc.sections) > 1
    assert doc.sections[0].heading_path.startswith("users > user0, user1")
    items = [item for s in doc.sections for item in json.loads(s.text)]
    assert items == users
    assert all(len(s.text) <= 2000 for s in doc.sections)


def test_batch_label_without_identity_uses_range() -> None:
    assert batch_label([1, 2, 3], 4) == "[4-6]"
    assert batch_label([{"id": 7}], 0) == "7"


def test_invalid_json_returns_none() -> None:
    assert section_json("bad.json", "{not json", 2000) is None
