from repoctx.extract import extract, imports_of, is_test_path, is_test_symbol, resolve_import
from tests.extract.memory_files import MemoryFiles

GO = '''package store

import (
	"fmt"
	"example.com/m/internal/util"
)

// Store keeps things.
type Store struct {
	items map[string]int
}

type Getter interface {
	Get(k string) int
}

const Limit = 10

// Get returns one.
func (s *Store) Get(key string) (int, error) {
	return util.Helper(key), fmt.Errorf("x")
}
'''

GO_TEST = '''package store

import "testing"

func TestStoreGet(t *testing.T) {
	s := &Store{}
	s.Get("a")
}

func helper() {}
'''




def test_go_definitions_are_package_qualified_with_lines_and_docs() -> None:
    found = {s.fq_name: s for s in extract("internal/store/store.go", GO)}
    assert list(found) == ["internal/store.Store", "internal/store.Getter",
                           "internal/store.Getter.Get", "internal/store.Limit",
                           "internal/store.Store.Get"]
    get = found["internal/store.Store.Get"]
    assert (get.kind, get.start_line, get.end_line) == ("method", 20, 22)
    assert get.signature == "func (s *Store) Get(key string) (int, error)"
    assert get.doc == "Get returns one." and "Helper" in get.refs
    assert found["internal/store.Store"].signature == "type Store struct"
    assert (found["internal/store.Store"].start_line, found["internal/store.Store"].end_line) \
        == (9, 11)


def test_go_tests_are_found_by_file_and_function_name() -> None:
    path = "internal/store/store_test.go"
    assert is_test_path(path) and not is_test_path("internal/store/store.go")
    symbols = {s.name: s for s in extract(path, GO_TEST)}
    assert is_test_symbol(symbols["TestStoreGet"], path)
    assert not is_test_symbol(symbols["helper"], path)
    assert "Get" in symbols["TestStoreGet"].refs


def test_go_imports_resolve_by_package_directory_under_go_mod() -> None:
    files = MemoryFiles({"go.mod": "module example.com/m\n\ngo 1.22\n",
                    "internal/util/util.go": "", "internal/util/util_test.go": "",
                    "internal/store/store.go": GO})
    specs = [i.specifier for i in imports_of("internal/store/store.go", GO)]
    assert specs == ["fmt", "example.com/m/internal/util"]
    assert resolve_import("internal/store/store.go", specs[1], files) \
        == "internal/util/util.go"
    assert resolve_import("internal/store/store.go", "fmt", files) is None
