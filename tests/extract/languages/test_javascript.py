from repoctx.extract import extract, imports_of, is_test_path, is_test_symbol, resolve_import
from tests.extract.memory_files import MemoryFiles

JS = '''import { h } from "./h";
const util = require("../util");

/** A button. */
export class Button extends Base {
  /** Renders it. */
  render() {
    return h(util.label());
  }
}

export const make = (label) => new Button(label);
'''

JS_TEST = '''import { Button } from "./button";

describe("Button", () => {
  it("renders a label", () => {
    expect(render(<Button />)).toBe(1);
  });
});
'''




def test_js_definitions_carry_module_path_lines_and_docs() -> None:
    found = {s.fq_name: s for s in extract("src/ui/button.js", JS)}
    assert list(found) == ["src/ui/button.util", "src/ui/button.Button",
                           "src/ui/button.Button.render", "src/ui/button.make"]
    render = found["src/ui/button.Button.render"]
    assert (render.kind, render.start_line, render.end_line) == ("method", 7, 9)
    assert render.doc == "Renders it." and set(render.refs) == {"h", "label"}
    assert found["src/ui/button.Button"].signature == "class Button extends Base"
    assert found["src/ui/button.make"].kind == "function"
    assert found["src/ui/button.make"].refs == ("Button",)


def test_describe_and_it_calls_are_tests_owning_their_references() -> None:
    path = "src/ui/button.test.jsx"
    assert is_test_path(path) and is_test_path("src/__tests__/x.js")
    assert not is_test_path("src/ui/button.js")
    found = {s.fq_name: s for s in extract(path, JS_TEST)}
    case = found["src/ui/button.test.Button.renders_a_label"]
    assert is_test_symbol(case, path) and "Button" in case.refs
    assert not any(s.test for s in extract("src/ui/button.js", JS_TEST))


def test_relative_imports_resolve_with_extensions_and_index_files() -> None:
    files = MemoryFiles(dict.fromkeys({"src/ui/h.ts", "src/util/index.js", "src/ui/button.js"}, ""))
    assert [i.specifier for i in imports_of("src/ui/button.js", JS)] == ["./h", "../util"]
    assert resolve_import("src/ui/button.js", "./h", files) == "src/ui/h.ts"
    assert resolve_import("src/ui/button.js", "../util", files) == "src/util/index.js"
    assert resolve_import("src/ui/button.js", "./h.js", files) == "src/ui/h.ts"
    assert resolve_import("src/ui/button.js", "react", files) is None


def test_a_binding_naming_another_definition_refers_to_it() -> None:
    text = "class Str {\n  static create = () => new Str();\n}\n" \
           "const stringType = Str.create;\nconst alias = stringType;\nconst n = 1;\n"
    for path in ("src/types.js", "src/types.ts"):
        found = {s.fq_name: s for s in extract(path, text)}
        assert found["src/types.stringType"].refs == ("create",)
        assert found["src/types.alias"].refs == ("stringType",)
        assert found["src/types.n"].refs == ()
