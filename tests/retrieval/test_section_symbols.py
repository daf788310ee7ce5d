"""Declarations found in an exported code section."""

from repoctx.retrieval.section_symbols import fq_name, line_numbers, section_symbols

CLASS_SECTION = '''@dataclass
class Cart:
    """A cart."""

    def add(self, x):
        def inner():
            return x
        return inner

    async def total(self):
        return 1

    class Meta:
        ordering = ["id"]
'''


def _names(found):
    return [(f.qualname, f.kind, f.start_line, f.end_line) for f in found]


def test_a_class_section_yields_its_methods_and_nested_classes_but_not_locals():
    found = section_symbols(CLASS_SECTION, 10, "Cart")
    assert _names(found) == [
        ("Cart", "class", 11, 23),
        ("Cart.add", "method", 14, 17),
        ("Cart.total", "method", 19, 20),
        ("Cart.Meta", "class", 22, 23),
    ]


def test_a_split_method_section_is_qualified_by_its_class():
    text = "    def select_related(self, *fields):\n        return self\n"
    found = section_symbols(text, 100, "QuerySet.select_related")
    assert _names(found) == [("QuerySet.select_related", "method", 100, 101)]


def test_a_continuation_section_yields_the_exported_symbol_alone():
    found = section_symbols("        x = 1\n        return x", 40, "Model.save")
    assert _names(found) == [("Model.save", "method", 40, 41)]


def test_module_level_code_yields_variables():
    text = "import os\n\nMAX_ITEMS = 50\nNAME: str = 'x'\nif x == 1:\n    Y = 2\n"
    assert [f.qualname for f in section_symbols(text, 1, None)] == ["MAX_ITEMS", "NAME"]


def test_fq_name_follows_the_module_path():
    assert fq_name("shop/cart.py", "Cart.add") == "shop.cart.Cart.add"
    assert fq_name("shop/__init__.py", "VERSION") == "shop.VERSION"


def test_a_glued_head_fragment_counts_the_definition_from_the_end():
    # Lines 1-3 ('"""Doc."""', '', 'X = 1') glued to a class at 6-7; blank lines 4-5
    # became the one blank line joining the blocks.
    text = '"""Doc."""\n\nX = 1\n\nclass A:\n    pass'
    assert line_numbers(text, 1, 7) == [1, 2, 3, 4, 6, 7]
    found = {f.qualname: (f.start_line, f.end_line) for f in section_symbols(text, 1, "A", 7)}
    assert found == {"X": (3, 3), "A": (6, 7)}


def test_a_glued_tail_fragment_keeps_the_definition_counted_from_the_start():
    text = "def main():\n    return run(1, 2, 3)\n\nif x:\n    main()"
    assert line_numbers(text, 10, 16)[:2] == [10, 11]
    assert line_numbers(text, 10, 16)[-1] == 16


def test_an_unglued_section_counts_lines_one_to_one():
    assert line_numbers("a\nb\n\nc", 5, 8) == [5, 6, 7, 8]
    assert line_numbers("a\nb", 5, None) == [5, 6]
