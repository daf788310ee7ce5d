"""extract/languages/cpp — C++ on the language seam (the rules live in `cfamily`).

Invariants: read with tree-sitter-cpp; names join namespaces and classes with `::`.
"""

from __future__ import annotations

from typing import Final

from repoctx.extract.grammar import installed
from repoctx.extract.language import Language
from repoctx.extract.languages.cfamily import (
    CPP_GRAMMAR,
    extract_cpp,
    include_imports,
    is_c_test_path,
    qualname_parts,
    resolve_include,
)

LANGUAGE: Final = Language(
    name="cpp", suffixes=(".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx"),
    grammar="tree-sitter-cpp", available=lambda: installed(CPP_GRAMMAR),
    symbols=extract_cpp, imports=include_imports, resolve=resolve_include,
    is_test_path=is_c_test_path, qualname_parts=qualname_parts, separator="::",
)
"""C++ on the language seam."""
