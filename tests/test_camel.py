"""camel: snake_case names become the camelCase keys every JSON answer uses."""

from repoctx.camel import camel, camel_keys


def test_names_and_keys():
    assert camel("gap_rows") == "gapRows" and camel("switched_from") == "switchedFrom"
    assert camel("embedded") == "embedded"
    assert camel_keys({"digest_rebuilt": True, "seconds": 1}) == {"digestRebuilt": True,
                                                                  "seconds": 1}
