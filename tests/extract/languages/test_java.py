from repoctx.extract import extract, is_test_path, is_test_symbol
from repoctx.extract.languages.java import java_imports, resolve_java
from tests.extract.memory_files import MemoryFiles

SOURCE = '''package com.acme.store;

import java.util.List;
import static org.junit.jupiter.api.Assertions.assertEquals;
import com.acme.util.*;

/**
 * Keeps items.
 * More text.
 */
@Deprecated
public class Store<T> extends Base implements Closeable {
    private int size = 0;

    /** Makes one. */
    public Store() { init(); }

    @Override
    public List<T> items(int limit)
            throws IOException {
        Runnable r = new Runnable() { public void run() { flush(); } };
        return helper(limit);
    }

    interface Listener { void changed(Store<?> store); }

    enum Mode { FAST, SLOW; boolean quick() { return this == FAST; } }
}
'''


def test_definitions_names_kinds_lines_docs_and_signatures() -> None:
    found = {s.fq_name: s for s in extract("src/main/java/com/acme/store/Store.java", SOURCE)}
    assert list(found) == [
        "com.acme.store.Store", "com.acme.store.Store.Store", "com.acme.store.Store.items",
        "com.acme.store.Store.items.run", "com.acme.store.Store.Listener",
        "com.acme.store.Store.Listener.changed", "com.acme.store.Store.Mode",
        "com.acme.store.Store.Mode.quick",
    ]
    store = found["com.acme.store.Store"]
    assert (store.kind, store.start_line, store.end_line) == ("class", 12, 28)
    assert store.doc == "Keeps items."
    assert store.signature == "public class Store<T> extends Base implements Closeable"
    assert {"Base", "Closeable", "Deprecated"} <= set(store.refs)
    items = found["com.acme.store.Store.items"]
    assert (items.kind, items.start_line, items.end_line) == ("method", 19, 23)
    assert items.signature == "public List<T> items(int limit) throws IOException"
    assert "helper" in items.refs and "flush" not in items.refs
    assert found["com.acme.store.Store.Store"].doc == "Makes one."
    assert found["com.acme.store.Store.items.run"].kind == "method"
    assert found["com.acme.store.Store.Mode"].kind == "class"


def test_junit_annotations_and_test_paths() -> None:
    source = '''package p;
class ParserTest {
    @Test void parsesEmpty() {}
    @ParameterizedTest
    void parsesMany(int n) {}
    void helper() {}
    public void testLegacy() {}
}
'''
    path = "src/test/java/p/ParserTest.java"
    found = {s.name: s for s in extract(path, source)}
    assert found["parsesEmpty"].test and found["parsesMany"].test
    assert not found["helper"].test
    assert found["testLegacy"].test
    assert is_test_symbol(found["ParserTest"], path)
    assert is_test_path("core/FooTests.java") and is_test_path("src/test/java/x/A.java")
    assert not is_test_path("src/main/java/x/Testament.java")
    production = {s.name: s for s in extract("src/main/java/p/Lib.java",
                                                "class Lib { void testLike() {} }")}
    assert not production["testLike"].test


def test_imports_are_read_and_resolved_under_the_source_root() -> None:
    imports = java_imports("x.java", SOURCE)
    assert [(i.specifier, i.line) for i in imports] == [
        ("java.util.List", 3), ("org.junit.jupiter.api.Assertions.assertEquals", 4),
        ("com.acme.util.*", 5)]
    files = MemoryFiles({
        "app/src/main/java/com/acme/store/Store.java": SOURCE,
        "app/src/main/java/com/acme/util/Strings.java": "package com.acme.util;",
        "app/src/main/java/com/acme/util/Bytes.java": "package com.acme.util;",
        "app/src/main/java/org/junit/jupiter/api/Assertions.java": "",
    })
    importer = "app/src/main/java/com/acme/store/Store.java"
    assert resolve_java(importer, "com.acme.util.*", files) == \
        "app/src/main/java/com/acme/util/Bytes.java"
    assert resolve_java(importer, "com.acme.util.Strings", files) == \
        "app/src/main/java/com/acme/util/Strings.java"
    assert resolve_java(importer, "org.junit.jupiter.api.Assertions.assertEquals", files) == \
        "app/src/main/java/org/junit/jupiter/api/Assertions.java"
    assert resolve_java(importer, "java.util.List", files) is None


def test_malformed_input_never_raises() -> None:
    for text in ("", "class {", "package ;\nclass A { void f( { }", "@@@\x00\ud800",
                 "class A { " * 300):
        for symbol in extract("A.java", text):
            assert symbol.start_line <= symbol.end_line
    assert java_imports("A.java", "import ;") == ()


def test_a_test_source_set_resolves_main_classes_of_its_module() -> None:
    files = MemoryFiles({
        "shop/src/main/java/com/shop/Pricing.java": "package com.shop;",
        "shop/src/test/java/com/shop/PricingTest.java": "package com.shop;",
    })
    assert resolve_java("shop/src/test/java/com/shop/PricingTest.java", "com.shop.Pricing",
                        files) == "shop/src/main/java/com/shop/Pricing.java"


def test_only_block_comments_are_docs() -> None:
    source = ("class A {\n    // <editor-fold desc=\"x\">\n    void f() {}\n"
              "    /* Does g. */\n    void g() {}\n}\n")
    found = {s.name: s.doc for s in extract("A.java", source)}
    assert found["f"] == "" and found["g"] == "Does g."
