from repoctx.extract import extract, is_test_path
from repoctx.extract.cfamily import (
    extract_c,
    extract_cpp,
    include_imports,
    resolve_include,
)
from repoctx.extract.declarations import first_branches

from .memory_files import MemoryFiles

C_SOURCE = '''#include "util.h"
#include <brotli/types.h>
#define LIMIT 10
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* Holds a pair. */
typedef struct pair {
    int left;
    int right;
} pair_t;

static int counter = 0, other;
extern int elsewhere;
int prototype(int x);

/** Adds. */
static int
add(int a, int b)
{
    int local = helper(a);
    return local + b;
}
'''

CPP_SOURCE = '''namespace store {
/// A box.
template <typename T>
class Box : public Base {
 public:
  int size;
  void put(T item) { check(item); }
  Box() = default;
  ~Box() {}
  bool operator==(const Box& other) const { return true; }
};
}  // namespace store

void store::Box<int>::drop() {}

TEST(BoxTest, Puts) {
  EXPECT_TRUE(true);
}
'''


def test_c_definitions() -> None:
    found = {(s.name, s.start_line): s for s in extract_c("src/add.c", C_SOURCE)}
    assert sorted(found) == [("LIMIT", 3), ("MAX", 4), ("add", 18), ("counter", 12),
                             ("pair", 7), ("pair_t", 10)]
    add = found["add", 18]
    assert (add.kind, add.end_line, add.doc) == ("function", 22, "Adds.")
    assert add.signature == "static int add(int a, int b)" and "helper" in add.refs
    assert found["pair", 7].kind == "class" and found["pair", 7].end_line == 10
    assert found["pair", 7].doc == "Holds a pair."
    assert found["MAX", 4].kind == "function" and found["LIMIT", 3].kind == "variable"
    assert found["LIMIT", 3].end_line == 3 and found["counter", 12].kind == "variable"


def test_cpp_names_join_namespaces_and_classes() -> None:
    found = {s.fq_name: s for s in extract_cpp("src/box.cpp", CPP_SOURCE)}
    assert list(found) == ["store::Box", "store::Box::put", "store::Box::~Box",
                           "store::Box::operator ==", "store::Box::drop", "BoxTest::Puts"]
    box = found["store::Box"]
    assert (box.kind, box.start_line, box.end_line, box.doc) == ("class", 4, 11, "A box.")
    assert found["store::Box::put"].kind == "method"
    assert found["store::Box::drop"].kind == "method"
    assert found["BoxTest::Puts"].test and not found["store::Box::put"].test


def test_headers_are_read_as_cpp_through_the_c_language() -> None:
    names = [s.fq_name for s in extract("include/box.h", CPP_SOURCE)]
    assert "store::Box::put" in names


def test_includes_resolve_relative_then_under_include_roots() -> None:
    assert [(i.specifier, i.line) for i in include_imports("a.c", C_SOURCE)] == [
        ("util.h", 1), ("<brotli/types.h>", 2)]
    files = MemoryFiles({"c/enc/encode.c": "", "c/enc/util.h": "", "c/common/util.h": "",
                         "c/include/brotli/types.h": ""})
    assert resolve_include("c/enc/encode.c", "util.h", files) == "c/enc/util.h"
    assert resolve_include("c/enc/encode.c", "<brotli/types.h>", files) == \
        "c/include/brotli/types.h"
    assert resolve_include("c/enc/encode.c", "<stdio.h>", files) is None
    assert resolve_include("c/enc/encode.c", "../../../etc/passwd", files) is None


def test_test_paths_and_malformed_input() -> None:
    assert is_test_path("src/parser_test.cc") and is_test_path("test_parser.c")
    assert is_test_path("lib/ParserTest.cpp") and not is_test_path("src/contest.c")
    for text in ("", "int (", "struct { int", "#define", "}}}", "\ud800", "namespace {" * 200):
        for symbol in extract_c("x.c", text) + extract_cpp("x.cpp", text):
            assert symbol.start_line <= symbol.end_line


def test_a_macro_before_the_type_does_not_take_the_name() -> None:
    source = "API_EXPORT Status\nupdate(State* s, int n)\n{\n    return 0;\n}\n"
    assert [(s.name, s.start_line, s.end_line) for s in extract_c("x.c", source)] == [
        ("update", 2, 5)]


BRANCHED = '''#if defined(FAST)
static int run(int n) {
    int fast = n;
#else
static int run(int n) {
    int slow = n;
#endif
    return n;
}

#ifdef WIDE
static long width = 8;
#else
static int narrow(void) { return 4; }
#endif
'''


def test_conditional_branches_that_each_open_a_brace_are_recovered() -> None:
    text, skipped = first_branches(BRANCHED)
    assert text.count("\n") == BRANCHED.count("\n") and skipped == {5, 6, 14}
    found = [(s.name, s.kind, s.start_line, s.end_line) for s in extract_c("x.c", BRANCHED)]
    assert ("run", "function", 2, 9) in found
    assert ("width", "variable", 12, 12) in found and ("narrow", "function", 14, 14) in found
    assert not any(name in ("fast", "slow") for name, *_ in found)


def test_a_missing_node_made_by_error_recovery_is_no_reference() -> None:
    source = ("template <typename array_t, typename ptr_t>\nclass Accessor {\n"
              "  using releaseFnc = void (Frame::*)(array_t, ptr_t, jint);\n};\n")
    found = {s.name: s for s in extract_cpp("a.h", source)}
    assert found["releaseFnc"].refs and "" not in found["releaseFnc"].refs


def test_a_banner_rule_is_not_the_doc() -> None:
    source = ("/**********************\n * Starts the engine.\n"
              " **********************/\nvoid start(void) {}\n")
    assert [s.doc for s in extract_c("e.c", source)] == ["Starts the engine."]
