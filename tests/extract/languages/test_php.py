import json

from repoctx.extract import extract, is_test_path
from repoctx.extract.languages.php import php_imports, resolve_php
from tests.extract.memory_files import MemoryFiles

SOURCE = '''<?php
namespace Acme\\Store;

use Acme\\Util\\Strings;
use function Acme\\Util\\helper;
require_once __DIR__ . '/bootstrap.php';

/**
 * Keeps items.
 */
#[Entity]
final class Box extends Base implements Countable
{
    private int $size = 0;

    /** Adds one. */
    public function add(Item $item): void
    {
        $this->check($item);
    }
}

interface Listener { public function changed(): void; }
trait Logs { function log() {} }
function build(): Box { return new Box(); }
'''


def test_php_names_kinds_lines_and_docs() -> None:
    found = {s.fq_name: s for s in extract("src/Store/Box.php", SOURCE)}
    assert list(found) == ["Acme\\Store\\Box", "Acme\\Store\\Box::add",
                           "Acme\\Store\\Listener", "Acme\\Store\\Listener::changed",
                           "Acme\\Store\\Logs", "Acme\\Store\\Logs::log",
                           "Acme\\Store\\build"]
    box = found["Acme\\Store\\Box"]
    assert (box.kind, box.start_line, box.end_line, box.doc) == ("class", 12, 21, "Keeps items.")
    add = found["Acme\\Store\\Box::add"]
    assert (add.kind, add.start_line, add.end_line, add.doc) == ("method", 17, 20, "Adds one.")
    assert "check" in add.refs
    assert box.signature == "final class Box extends Base implements Countable"
    assert add.signature == "public function add(Item $item): void"
    assert found["Acme\\Store\\build"].kind == "function"


def test_phpunit_tests() -> None:
    source = '''<?php
class BoxTest extends TestCase {
    public function testAdds(): void {}
    /** @test */
    public function it_counts(): void {}
    #[Test]
    public function attributes(): void {}
    private function helper(): void {}
}'''
    found = {s.name: s for s in extract("tests/BoxTest.php", source)}
    assert [n for n, s in found.items() if s.test] == ["testAdds", "it_counts", "attributes"]
    assert is_test_path("src/BoxTest.php") and not is_test_path("src/Contest.php")
    assert not any(s.test for s in extract("src/Box.php", source))


def test_includes_and_psr4_uses_resolve() -> None:
    assert [(i.specifier, i.line) for i in php_imports("x.php", SOURCE)] == [
        ("Acme\\Util\\Strings", 4), ("Acme\\Util\\helper", 5), ("/bootstrap.php", 6)]
    composer = json.dumps({"autoload": {"psr-4": {"Acme\\": "src/"}}})
    files = MemoryFiles({"composer.json": composer, "src/Util/Strings.php": "",
                         "src/Store/Box.php": "", "src/Store/bootstrap.php": ""})
    assert resolve_php("src/Store/Box.php", "Acme\\Util\\Strings", files) == \
        "src/Util/Strings.php"
    assert resolve_php("src/Store/Box.php", "/bootstrap.php", files) == \
        "src/Store/bootstrap.php"
    assert resolve_php("src/Store/Box.php", "Other\\Thing", files) is None
    broken = MemoryFiles({"composer.json": "{not json", "Acme/X.php": ""})
    assert resolve_php("a.php", "Acme\\X", broken) == "Acme/X.php"


def test_malformed_input_never_raises() -> None:
    for text in ("", "<?php", "<?php class {", "<?php function (", "\ud800",
                 "<?php class A {" * 200, "plain html <b>"):
        for symbol in extract("a.php", text):
            assert symbol.start_line <= symbol.end_line


def test_each_namespace_statement_names_what_follows_it() -> None:
    source = ("<?php\nnamespace First;\nclass A { function a() {} }\n"
              "namespace Second\\Sub;\nclass B { function b() {} }\nfunction c() {}\n")
    assert [s.fq_name for s in extract("x.php", source)] == [
        "First\\A", "First\\A::a", "Second\\Sub\\B", "Second\\Sub\\B::b", "Second\\Sub\\c"]
