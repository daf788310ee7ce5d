from repoctx.extract import extract, is_test_path
from repoctx.extract.declarations import first_branches
from repoctx.extract.languages.cfamily import (
    extract_c,
    extract_cpp,
    include_imports,
    resolve_include,
)
from tests.extract.memory_files import MemoryFiles

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


MACROS_IN_BODIES = '''static unsigned finish(unsigned h, const char* p)
{
#define STEP(n)       \\
    h += (*p++) * n;  \\
    h = h << 1;
    typedef struct { char c; unsigned u; } probe_t;
    STEP(3)
    return h + sizeof(probe_t);
}

static int branchy(int n)
{
#if FAST
    if (n) {
#else
    if (n > 1) {
#endif
#define LIMIT 8
        typedef enum { low, high } level_e;
        return LIMIT;
    }
    return 0;
}
'''


def test_macros_in_function_bodies_are_unscoped_and_local_typedefs_kept() -> None:
    found = {s.name: s for s in extract_c("hash.c", MACROS_IN_BODIES)}
    step, limit = found["STEP"], found["LIMIT"]
    assert (step.fq_name, step.kind, step.start_line, step.end_line) == (
        "STEP", "function", 3, 5)
    assert (limit.fq_name, limit.kind, limit.start_line) == ("LIMIT", "variable", 18)
    assert (found["probe_t"].fq_name, found["probe_t"].start_line) == ("finish::probe_t", 6)
    # the `#if`/`#else` branches each open a brace: the re-read keeps the body's types
    assert found["level_e"].start_line == 19 and found["branchy"].end_line == 23


def test_a_macro_in_a_namespace_or_class_is_unscoped() -> None:
    source = "namespace ns {\nclass A {\n#define FLAG 1\n  int f() { return FLAG; }\n};\n}\n"
    found = {s.name: s.fq_name for s in extract_cpp("a.cpp", source)}
    assert found["FLAG"] == "FLAG" and found["f"] == "ns::A::f"


def test_a_statement_after_an_unexpanded_macro_is_no_function() -> None:
    source = ("static int run(int n)\n{\n    Py_BEGIN_ALLOW_THREADS n = work(n);\n"
              "    Py_END_ALLOW_THREADS\n    if (n == 0) {\n        n = 1;\n    }\n"
              "    return n;\n}\n")
    found = [(s.fq_name, s.start_line, s.end_line) for s in extract_c("run.c", source)]
    assert found == [("run", 1, 9)]


def test_visibility_macros_before_a_function_name_do_not_take_it() -> None:
    source = "#define VIS\nVIS PyMODINIT_FUNC PyInit_mod(void) {\n    return 0;\n}\nint x;\n"
    for path in ("mod.c", "mod.h"):  # the C grammar and (for headers) the C++ one
        found = [(s.fq_name, s.kind, s.start_line, s.end_line)
                 for s in extract_c(path, source)]
        assert found == [("VIS", "variable", 1, 1), ("PyInit_mod", "function", 2, 4),
                         ("x", "variable", 5, 5)], path


def test_variables_in_an_extern_c_block_opened_under_ifdef_are_defined() -> None:
    source = ('#ifdef __cplusplus\nextern "C"\n{\n#endif\nint *a = nullptr;\n'
              'static int b[] = {1};\n#ifdef __cplusplus\n}\n#endif\n'
              'extern "C" int c;\nextern "C" { int d; }\n')
    found = [(s.name, s.start_line) for s in extract_cpp("types.cpp", source)]
    assert found == [("a", 5), ("b", 6), ("d", 11)]


def test_namespace_scope_variables_are_defined_but_not_a_function_s_locals() -> None:
    source = ("namespace n {\nint a;\nnamespace m { static int z = 2; }\n}\n"
              "namespace\n{\nT* b;\nvoid f() { int local = 1; }\n}\n")
    found = [(s.fq_name, s.kind, s.start_line) for s in extract_cpp("ns.cpp", source)]
    assert found == [("n::a", "variable", 2), ("n::m::z", "variable", 3),
                     ("b", "variable", 7), ("f", "function", 8)]
