"""extract — language-dispatched symbol extraction (tree-sitter), one module per language.

Invariants: pure functions of a path and its decoded text (no I/O, no store);
a language without an extractor declares no symbols; extractors never raise on
malformed source.
"""

from repoctx.extract.languages import language_of
from repoctx.extract.modules import module_name
from repoctx.extract.registry import Extractor, extract, extractor_for, register
from repoctx.extract.symbol import CLASS, FUNCTION, KINDS, METHOD, VARIABLE, Symbol
from repoctx.extract.testcode import is_test_name, is_test_path, is_test_symbol

__all__ = [
    "CLASS",
    "Extractor",
    "FUNCTION",
    "KINDS",
    "METHOD",
    "Symbol",
    "VARIABLE",
    "extract",
    "extractor_for",
    "is_test_name",
    "is_test_path",
    "is_test_symbol",
    "language_of",
    "module_name",
    "register",
]
