from repoctx.extract import extract, imports_of, is_test_symbol, resolve_import
from tests.extract.memory_files import MemoryFiles

RS = '''use crate::util::{helper, Other};
mod inner;

/// The store.
#[derive(Debug)]
pub struct Store {
    items: Vec<u8>,
}

impl Store {
    /// Get one.
    pub fn get(&self) -> u8 {
        helper(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn get_works() {
        Store::new().get();
    }
}
'''




def test_rust_items_are_crate_qualified_with_exact_spans() -> None:
    found = {s.fq_name: s for s in extract("src/store.rs", RS)}
    assert list(found) == ["crate::store::Store", "crate::store::Store::get",
                           "crate::store::tests::get_works"]
    get = found["crate::store::Store::get"]
    assert (get.kind, get.start_line, get.end_line, get.doc) == ("method", 12, 14, "Get one.")
    assert get.signature == "pub fn get(&self) -> u8" and get.refs == ("helper",)
    assert found["crate::store::Store"].doc == "The store."
    test = found["crate::store::tests::get_works"]
    assert test.test and is_test_symbol(test, "src/store.rs")
    assert {"Store", "get"} <= set(test.refs)
    assert not found["crate::store::Store"].test


def test_rust_use_and_mod_resolve_within_the_crate() -> None:
    files = MemoryFiles(dict.fromkeys(
        ["src/lib.rs", "src/util.rs", "src/store.rs", "src/store/inner.rs"], ""))
    assert [i.specifier for i in imports_of("src/store.rs", RS)] \
        == ["crate::util", "mod inner", "super"]
    assert resolve_import("src/store.rs", "crate::util", files) == "src/util.rs"
    assert resolve_import("src/store.rs", "crate::util::helper", files) == "src/util.rs"
    assert resolve_import("src/store.rs", "mod inner", files) == "src/store/inner.rs"
    assert resolve_import("src/store.rs", "super", files) == "src/lib.rs"
    assert resolve_import("src/store.rs", "std::io", files) is None
