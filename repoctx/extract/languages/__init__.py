"""extract/languages — one module per language on the seam (``extract/language``), plus
the rules C and C++ share (``cfamily``)."""

__all__: list[str] = []
