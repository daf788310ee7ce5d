"""Run by a project's own venv (which has coverage.py): print, as JSON, the test contexts
that executed each line of each measured file of one ``.coverage`` data file.

    python _impact_dump.py DATA_FILE  ->  {"/abs/file.py": {"12": ["ctx", ...], ...}, ...}
"""

from __future__ import annotations

import json
import sys

from coverage import CoverageData


def contexts_by_line(data_file: str) -> dict[str, dict[str, list[str]]]:
    """File -> line -> the non-empty contexts that executed it."""
    data = CoverageData(data_file)
    data.read()
    out: dict[str, dict[str, list[str]]] = {}
    for path in sorted(data.measured_files()):
        lines = data.contexts_by_lineno(path)
        out[path] = {str(n): sorted(c for c in ctxs if c) for n, ctxs in lines.items()}
    return out


if __name__ == "__main__":
    json.dump(contexts_by_line(sys.argv[1]), sys.stdout)
