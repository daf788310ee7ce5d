from repoctx.extract import extract, is_test_path
from repoctx.extract.languages.csharp import csharp_imports, resolve_csharp
from tests.extract.memory_files import MemoryFiles

SOURCE = '''using System;
using static System.Math;
using Alias = Acme.Util;

namespace Acme.Store
{
    /// <summary>
    /// Keeps items.
    /// </summary>
    [Serializable]
    public class Store<T> : Base, IDisposable
    {
        private int size;
        public int Count { get; set; }

        /// <summary>Adds one.</summary>
        [Obsolete]
        public void Add(T item) => Check(item);

        public Store() { }
        ~Store() { }
        public static Store<T> operator +(Store<T> a, Store<T> b) => a;
        public T this[int index] => default;

        struct Slot { }
        enum Mode { Fast, Slow }
        interface IListener { void Changed(); }
    }
}
'''


def test_definitions_names_kinds_lines_and_docs() -> None:
    found = {s.fq_name: s for s in extract("src/Store.cs", SOURCE)}
    assert list(found) == [
        "Acme.Store.Store", "Acme.Store.Store.Count", "Acme.Store.Store.Add",
        "Acme.Store.Store.Store", "Acme.Store.Store.~Store", "Acme.Store.Store.operator +",
        "Acme.Store.Store.this", "Acme.Store.Store.Slot", "Acme.Store.Store.Mode",
        "Acme.Store.Store.IListener", "Acme.Store.Store.IListener.Changed",
    ]
    store = found["Acme.Store.Store"]
    assert (store.kind, store.start_line, store.end_line) == ("class", 11, 28)
    assert store.doc == "Keeps items."
    assert store.signature == "public class Store<T> : Base, IDisposable"
    add = found["Acme.Store.Store.Add"]
    assert (add.kind, add.start_line, add.doc) == ("method", 18, "Adds one.")
    assert add.signature == "public void Add(T item)" and "Check" in add.refs
    assert found["Acme.Store.Store.Count"].kind == "method"


def test_file_scoped_namespaces_prefix_the_file() -> None:
    source = "namespace Acme.Io;\nclass File { void Open() {} }"
    names = [s.fq_name for s in extract("A.cs", source)]
    assert names == ["Acme.Io.File", "Acme.Io.File.Open"]


def test_xunit_nunit_mstest_attributes() -> None:
    source = '''public class ParserTests {
    [Fact] public void Parses() {}
    [Theory, InlineData(1)] public void ParsesMany(int n) {}
    [Test] public void NUnitStyle() {}
    [TestMethod] public void MsTestStyle() {}
    public void Helper() {}
}'''
    found = {s.name: s for s in extract("tests/Acme.Tests/ParserTests.cs", source)}
    assert [n for n, s in found.items() if s.test] == ["Parses", "ParsesMany", "NUnitStyle",
                                                       "MsTestStyle"]
    assert is_test_path("Acme.Tests/Anything.cs") and is_test_path("src/ParserTest.cs")
    assert not is_test_path("src/Contest.cs")


def test_using_directives_resolve_to_namespace_folders() -> None:
    assert [(i.specifier, i.line) for i in csharp_imports("x.cs", SOURCE)] == [
        ("System", 1), ("System.Math", 2), ("Acme.Util", 3)]
    files = MemoryFiles({"src/Acme/Store/Store.cs": "", "src/Acme/Util/Text.cs": "",
                         "src/Acme/Util/Bytes.cs": "", "lib/Acme.Net/Client.cs": ""})
    assert resolve_csharp("src/Acme/Store/Store.cs", "Acme.Util", files) == \
        "src/Acme/Util/Bytes.cs"
    assert resolve_csharp("lib/App.cs", "Acme.Net", files) == "lib/Acme.Net/Client.cs"
    assert resolve_csharp("src/Acme/Store/Store.cs", "System", files) is None


def test_malformed_input_never_raises() -> None:
    for text in ("", "class {", "namespace ;", "[Fact", "\ud800", "class A {" * 300):
        for symbol in extract("A.cs", text):
            assert symbol.start_line <= symbol.end_line


def test_definitions_around_if_directives_keep_their_lines() -> None:
    source = '''namespace N
{
    public class Finalizer
    {
        internal void Add(ref int obj, int run
#if TRACE_ALLOC
                          , string trace
#endif
        )
        {
#if FINALIZER_CHECK
            lock (_queueLock)
#endif
            {
                Queue(obj);
            }
        }

        public void Collect() { }
    }
}
'''
    found = {s.fq_name: (s.start_line, s.end_line) for s in extract("F.cs", source)}
    assert found == {"N.Finalizer": (3, 20), "N.Finalizer.Add": (5, 17),
                     "N.Finalizer.Collect": (19, 19)}
