"""trees/spec: exactly the named trees of DESIGN.md §2, and what each one carries."""

from repoctx.trees import BY_FAMILY, BY_NAME, LOCAL_TREE, ROOT_FAMILY, TREES
from repoctx.trees.spec import DAY_MS, HOUR_MS

# DESIGN.md §2 "Store layout": "Named trees = named LMDB databases, exactly these names",
# plus the test coverage tree (DESIGN.md §4 "Covering tests").
DESIGN_TREES = [
    "repo-context-structural", "repo-context-symbol", "repo-context-content",
    "repo-context-xref", "repo-context-memory", "repo-context-session",
    "repo-context-vector-membership", "repo-context-vector-payload",
    "repo-context-vector-metadata", "repo-context-vector-index",
    "repo-context-vector-coverage", "repo-context-coverage",
]


def test_names_are_exactly_the_designs():
    assert [t.name for t in TREES] == DESIGN_TREES
    assert LOCAL_TREE == "repo-context-local" and LOCAL_TREE not in BY_NAME
    assert set(BY_NAME) == set(DESIGN_TREES)


def test_every_family_routes_to_exactly_one_tree():
    families = [f for t in TREES for f in t.families]
    assert len(families) == len(set(families)) == len(BY_FAMILY)
    assert BY_FAMILY[ROOT_FAMILY].name == "repo-context-structural"
    assert {f: BY_FAMILY[f].name for f in ("pkg", "file", "symbol", "xref", "mem", "vpay")} == {
        "pkg": "repo-context-structural", "file": "repo-context-structural",
        "symbol": "repo-context-symbol", "xref": "repo-context-xref",
        "mem": "repo-context-memory", "vpay": "repo-context-vector-payload"}


def test_grace_trigger_and_envelope_per_tree():
    kept = {t.name: (t.grace_ms, t.compaction_trigger, t.envelope, t.replicated) for t in TREES}
    assert kept == {
        "repo-context-structural": (DAY_MS, 50_000, None, True),
        "repo-context-symbol": (DAY_MS, 50_000, (1, 1), True),
        "repo-context-content": (DAY_MS, 50_000, None, True),
        "repo-context-xref": (DAY_MS, 50_000, None, True),
        "repo-context-memory": (7 * DAY_MS, 50_000, None, True),
        "repo-context-session": (HOUR_MS, 5_000, None, True),
        "repo-context-vector-membership": (DAY_MS, 50_000, None, True),
        "repo-context-vector-payload": (None, None, None, True),
        "repo-context-vector-metadata": (DAY_MS, 50_000, None, True),
        "repo-context-vector-index": (DAY_MS, 50_000, None, False),
        "repo-context-vector-coverage": (DAY_MS, 50_000, None, False),
        "repo-context-coverage": (DAY_MS, 50_000, None, False),
    }
