from repoctx.extract import extract, is_test_path, is_test_symbol
from repoctx.extract.languages.ruby import resolve_ruby, ruby_imports
from tests.extract.memory_files import MemoryFiles

SOURCE = '''require_relative "store/item"
require "json"

# Keeps items.
# More.
module Acme::Store
  LIMIT = 10

  class Box < Base
    # Adds one.
    def add(item)
      check(item)
    end

    def self.build
      new
    end

    class << self
      def open; end
    end

    attr_reader :size
  end
end

def helper; end
'''


def test_ri_names_kinds_lines_and_docs() -> None:
    found = {s.fq_name: s for s in extract("lib/acme/store.rb", SOURCE)}
    assert list(found) == ["Acme::Store", "Acme::Store::LIMIT", "Acme::Store::Box",
                           "Acme::Store::Box#add", "Acme::Store::Box.build",
                           "Acme::Store::Box.open", "helper"]
    module = found["Acme::Store"]
    assert (module.kind, module.start_line, module.end_line) == ("class", 6, 25)
    assert module.doc == "Keeps items." and module.name == "Store"
    add = found["Acme::Store::Box#add"]
    assert (add.name, add.kind, add.start_line, add.end_line) == ("add", "method", 11, 13)
    assert add.doc == "Adds one." and add.signature == "def add(item)"
    assert "check" in add.refs
    assert found["Acme::Store::Box.build"].kind == "method"
    assert found["Acme::Store::Box.open"].name == "open"
    assert found["Acme::Store::LIMIT"].kind == "variable"
    assert found["Acme::Store::Box"].signature == "class Box < Base"
    assert found["helper"].kind == "function"


def test_specs_and_minitest() -> None:
    spec = '''describe Box do
  context "when empty" do
    it "has no items" do
      expect(Box.new.size).to eq(0)
    end
  end
end
'''
    found = {s.name: s for s in extract("spec/box_spec.rb", spec)}
    assert found["has no items"].test and found["has no items"].start_line == 3
    assert found["Box"].kind == "class" and not found["Box"].test
    assert found["when empty"].end_line == 6
    minitest = "class BoxTest < Minitest::Test\n  def test_add; end\n  def helper; end\nend\n"
    path = "test/box_test.rb"
    found = {s.name: s for s in extract(path, minitest)}
    assert is_test_symbol(found["test_add"], path) and not is_test_symbol(found["helper"], path)
    assert is_test_path("test_box.rb") and is_test_path("lib/box_test.rb")
    assert not is_test_path("lib/contest.rb")
    assert not any(s.test for s in extract("lib/dsl.rb", spec))


def test_requires_resolve() -> None:
    assert [(i.specifier, i.line) for i in ruby_imports("x.rb", SOURCE)] == [
        ("./store/item", 1), ("json", 2)]
    files = MemoryFiles({"lib/acme/store.rb": "", "lib/acme/store/item.rb": "",
                         "lib/json.rb": ""})
    assert resolve_ruby("lib/acme/store.rb", "./store/item", files) == "lib/acme/store/item.rb"
    assert resolve_ruby("lib/acme/store.rb", "json", files) == "lib/json.rb"
    assert resolve_ruby("lib/acme/store.rb", "yaml", files) is None


def test_malformed_input_never_raises() -> None:
    for text in ("", "class", "def (", "module A; class B; def c", "\ud800", "class A\n" * 300):
        for symbol in extract("a.rb", text):
            assert symbol.start_line <= symbol.end_line
