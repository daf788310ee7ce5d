"""extract/languages/c — C on the language seam (the rules live in `cfamily`).

Invariants: `.c` files are read with tree-sitter-c, `.h` headers with tree-sitter-cpp
(a header may hold either language, as ctags assumes); names are bare C names.
"""

from __future__ import annotations

from typing import Final

from repoctx.extract.grammar import installed
from repoctx.extract.language import Language
from repoctx.extract.languages.cfamily import (
    C_GRAMMAR,
    CPP_GRAMMAR,
    extract_c,
    include_imports,
    is_c_test_path,
    qualname_parts,
    resolve_include,
)

LANGUAGE: Final = Language(
    name="c", suffixes=(".c", ".h"), grammar="tree-sitter-c tree-sitter-cpp",
    available=lambda: installed(C_GRAMMAR) and installed(CPP_GRAMMAR),
    symbols=extract_c, imports=include_imports, resolve=resolve_include,
    is_test_path=is_c_test_path, qualname_parts=qualname_parts, separator="::",
)
"""C on the language seam."""
