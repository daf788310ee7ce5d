"""The staleness truth table of seed 003, end to end through the real reconcile."""

from __future__ import annotations

from repoctx import memory
from repoctx.crdt import record
from repoctx.memory import memory_record
from repoctx.memory.staleness import FRESH, NOT_EVALUATED, evaluate, link_state

from .conftest import APP, index, key, write

FILE = key("file", "app.py")
SYMBOL = key("symbol", "app.Model")


def note(store, links, entry_id="n1"):
    return memory.remember(store, "t", entry_id, add_links=links)["key"]


def flags(store, k):
    got = memory.recall(store, k)
    return got["stale"], got["staleLinks"], got["danglingLinks"]


def test_a_link_to_an_unchanged_file_or_symbol_is_fresh(indexed):
    k = note(indexed, {"about": [FILE], "uses": [SYMBOL]})
    assert flags(indexed, k) == (False, [], [])


def test_a_link_to_a_file_that_then_changes_is_stale_not_dangling(indexed, repo):
    k = note(indexed, {"about": [FILE]})
    write(repo, {"app.py": APP + "\nEXTRA = 1\n"})
    index(indexed, repo)
    assert flags(indexed, k) == (True, [FILE], [])


def test_a_link_to_a_deleted_file_is_stale_and_dangling(indexed, repo):
    k = note(indexed, {"about": [FILE]})
    (repo / "app.py").unlink()
    index(indexed, repo)
    assert flags(indexed, k) == (True, [FILE], [FILE])


def test_a_symbol_not_yet_indexed_dangles_until_indexed_and_relinked(indexed, repo):
    later = key("symbol", "later.Later")
    k = note(indexed, {"uses": [later]})
    assert flags(indexed, k) == (True, [later], [later])
    write(repo, {"later.py": "class Later:\n    pass\n"})
    index(indexed, repo)
    # Indexed now, but no digest was captured when the link was made: still stale.
    assert flags(indexed, k) == (True, [later], [])
    memory.update(indexed, k, add_links={"uses": [later]})
    assert flags(indexed, k) == (False, [], [])


def test_a_symbol_drifts_with_its_signature_but_not_when_merely_moved(indexed, repo):
    k = note(indexed, {"uses": [key("symbol", "app.validate")]})
    write(repo, {"app.py": "# a comment that moves everything down\n" + APP})
    index(indexed, repo)
    assert flags(indexed, k)[0] is False
    write(repo, {"app.py": APP.replace("def validate(obj):", "def validate(obj, strict):")})
    index(indexed, repo)
    assert flags(indexed, k)[0] is True


def test_a_memory_to_memory_link_is_never_stale(indexed):
    other = key("mem", "t/missing")
    k = note(indexed, {"see": [other]})
    assert flags(indexed, k) == (False, [], [])
    note(indexed, {}, "missing")
    memory.forget(indexed, other)
    assert flags(indexed, k) == (False, [], [])


def test_removing_a_stale_link_leaves_no_phantom_flag(indexed, repo):
    k = note(indexed, {"about": [FILE], "see": [key("mem", "t/x")]})
    (repo / "app.py").unlink()
    index(indexed, repo)
    assert flags(indexed, k)[0] is True
    memory.update(indexed, k, remove_links={"about": [FILE]})
    assert flags(indexed, k) == (False, [], [])
    rec = indexed.get(k)
    assert memory_record.entry(k, rec).digests == {}  # the captured digest went too


def test_one_target_under_two_relations_is_reported_once(indexed, repo):
    k = note(indexed, {"about": [FILE], "tests": [FILE]})
    write(repo, {"app.py": APP + "\n# changed\n"})
    index(indexed, repo)
    assert flags(indexed, k) == (True, [FILE], [])
    memory.update(indexed, k, remove_links={"about": [FILE]})
    assert flags(indexed, k) == (True, [FILE], [])  # still linked under "tests"


def test_bulk_scan_evaluates_nothing(indexed, repo):
    note(indexed, {"about": [FILE]}, "changed")
    note(indexed, {"about": [key("file", "gone.py")]}, "dangling")
    write(repo, {"app.py": APP + "\n# changed\n"})
    index(indexed, repo)
    for scope in ("memory", "files", "symbols", "packages"):
        page = memory.scan(indexed, scope)
        assert page["entries"], scope
        for item in page["entries"]:
            for name in ("stale", "staleLinks", "danglingLinks", "expiresAtUtc",
                         "remainingSeconds"):
                assert item[name] is None, (scope, name)


def test_dangling_is_a_subset_of_stale_for_every_outcome():
    live = {"repo/demo/file/a": record.empty()}
    assert link_state(live.get, "repo/demo/file/b", "d") == (True, True)
    assert link_state(live.get, "repo/demo/mem/t/x", None) == (False, False)
    entry = memory_record.Entry("repo/demo/mem/t/i", "t", "i", "note")
    assert evaluate(entry, live.get) == FRESH
    assert NOT_EVALUATED == {"stale": None, "staleLinks": None, "danglingLinks": None}


def test_a_link_whose_digest_was_never_captured_is_stale(indexed):
    k = note(indexed, {})
    entry = memory_record.entry(k, indexed.get(k))
    linked = memory_record.Entry(k, "t", "n1", "note", links={"about": frozenset({FILE})})
    assert evaluate(linked, indexed.get).stale_links == (FILE,)
    assert evaluate(entry, indexed.get) == FRESH
