"""reconcile/project: projections of one file written into one batch."""

from repoctx.crdt import record
from repoctx.reconcile import xref_journal
from repoctx.reconcile.nodes import file_node, package_node, symbol_record, xref_record
from repoctx.reconcile.nodes.symbol_record import Declaration
from repoctx.reconcile.project import Counts, Projector
from repoctx.trees import BY_FAMILY


def children(store, directory):
    return package_node.children(store.get(store.key("pkg", directory)))


def project(store, fn, *, xref=True):
    counts = Counts()
    with store.batch() as b:
        p = Projector(store, b, counts, xref=xref)
        fn(p)
        p.close()
    return counts, b


def test_directory_entries_are_written_once_per_directory_per_batch(store):
    def enter(p):
        for path in ("pkg/a.py", "pkg/b.py", "pkg/sub/c.py", "pkg/sub/d.py", "top.py"):
            p.enter_directory(path)

    _, batch = project(store, enter)
    assert batch.written == {"repo-context-structural": 3}  # ".", "pkg", "pkg/sub"
    assert children(store, ".") == {"pkg/", "top.py"}
    assert children(store, "pkg") == {"a.py", "b.py", "sub/"}
    assert children(store, "pkg/sub") == {"c.py", "d.py"}


def test_leaving_prunes_directories_that_became_empty(store):
    project(store, lambda p: [p.enter_directory(x) for x in ("a/b/c/x.py", "a/y.py")])
    project(store, lambda p: p.leave_directory("a/b/c/x.py"))
    assert store.get(store.key("pkg", "a/b/c")) is None  # tombstone
    assert store.get(store.key("pkg", "a/b")) is None
    assert children(store, "a") == {"y.py"} and children(store, ".") == {"a/"}


D = Declaration("class", "class Cart(Base)", "", 1, 3, ("Base",), False)


def test_symbols_write_records_and_journal_their_edges(store):
    counts, _ = project(store, lambda p: p.symbols("shop/cart.py", (), {"shop.cart.Cart": D}))
    assert counts.symbols == 1 and len(counts.journal_keys) == 1
    assert counts.changes == {"Base": {"dependents": {"shop.cart.Cart": 1}}}
    decls = symbol_record.declarations(store.get(store.key("symbol", "shop.cart.Cart")))
    assert decls == {"shop/cart.py": D}
    xref_journal.apply_pending(store, counts.changes, counts.journal_keys)
    assert xref_record.members(store.get(store.key("xref", "Base")), "dependents") == {
        "shop.cart.Cart"}
    again, _ = project(store, lambda p: p.symbols("shop/cart.py", ("shop.cart.Cart",),
                                                  {"shop.cart.Cart": D}))
    assert again.symbols == 0 and again.changes == {} and not again.journal_keys


def test_without_xref_no_edges_are_gathered(store):
    counts, _ = project(store, lambda p: p.symbols("a.py", (), {"a.Cart": D}), xref=False)
    assert counts.symbols == 1 and counts.changes == {}


def test_retire_removes_node_content_declarations_and_entry(store):
    node = file_node.FileNode("pkg/a.py", 1, 2, "d", "python", 1, ("pkg.a.Cart",),
                              (file_node.SYMBOLS,))

    def add(p):
        p.node(node)
        assert p.content("pkg/a.py", "body", "d")
        p.symbols("pkg/a.py", (), {"pkg.a.Cart": D})
        p.enter_directory("pkg/a.py")

    project(store, add)
    assert store.get(store.key("file", "pkg/a.py")) is not None
    counts, _ = project(store, lambda p: p.retire(node))
    for family in ("file", "content", "symbol"):
        path = "pkg.a.Cart" if family == "symbol" else "pkg/a.py"
        assert store.get(store.key(family, path)) is None, family
    assert store.get(store.key("pkg", "pkg")) is None
    assert counts.changes == {"Base": {"dependents": {"pkg.a.Cart": -1}}}
    with store.snapshot() as snap:
        rows = dict(snap.scan_tree(BY_FAMILY["file"], include_hidden=True))
    assert record.is_tombstone(rows[store.key("file", "pkg/a.py")])
