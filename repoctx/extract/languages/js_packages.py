"""extract/languages/js_packages — a bare import that names the importer's own package.

Node resolves `import "zod/v3"` inside the `zod` package through that package's own
`package.json` (self-reference): its `exports` map (a path, a list, or conditions nested
to any depth, `*` patterns included), else `main`/`module`/`types`. Repositories test
their package this way, so a test's import must lead to the source it runs. Among the
targets an entry offers, a source file the repository holds wins (a `source`-style
condition pointing at `src/…`), then any that exists; the built output a tarball or
checkout may lack is skipped. Pure: reads only through the `Files` it is handed.
"""

from __future__ import annotations

import json
import posixpath
from typing import Any

from repoctx.extract.language import Files, inside

_SOURCE = (".ts", ".tsx", ".mts", ".cts", ".jsx")
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")  # types only: never the code a test runs
_FIELDS = ("source", "module", "main", "types")
_MAX_DEPTH = 16  # folders climbed to the nearest package.json


def resolve_own_package(importer: str, specifier: str, files: Files,
                        candidates: Any) -> str | None:
    """The file a bare ``specifier`` names in the importer's own package, or None (another
    package, no ``package.json``, a malformed one). ``candidates(path) -> [paths]`` spells
    the suffixes a written path may stand for (``javascript.resolve_relative``'s rules)."""
    if specifier.startswith((".", "/")):
        return None
    found = _nearest_manifest(importer, files)
    if found is None:
        return None
    folder, manifest = found
    name = manifest.get("name")
    if not isinstance(name, str) or not (specifier == name or specifier.startswith(name + "/")):
        return None
    subpath = "." + specifier[len(name):]
    existing = []
    for target in _targets(manifest, subpath):
        for spelled in candidates(posixpath.join(folder, target)):
            path = inside(spelled)
            if path is not None and files.exists(path):
                existing.append(path)
    sources = [p for p in existing if p.endswith(_SOURCE) and not p.endswith(_DECLARATIONS)]
    return (sources or existing or [None])[0]


def _nearest_manifest(importer: str, files: Files) -> tuple[str, dict[str, Any]] | None:
    """The folder and parsed ``package.json`` nearest above ``importer``."""
    folder = posixpath.dirname(importer)
    for _ in range(_MAX_DEPTH):
        path = posixpath.join(folder, "package.json") if folder else "package.json"
        if files.exists(path):
            try:
                manifest = json.loads(files.read(path) or "")
            except ValueError:
                return None
            return (folder, manifest) if isinstance(manifest, dict) else None
        if not folder:
            return None
        folder = posixpath.dirname(folder)
    return None


def _targets(manifest: dict[str, Any], subpath: str) -> list[str]:
    """Every target the manifest offers for ``subpath``, in the order it lists them."""
    exports = manifest.get("exports")
    if exports is None:
        if subpath != ".":
            return [subpath]
        return [manifest[f] for f in _FIELDS if isinstance(manifest.get(f), str)] + ["index"]
    if isinstance(exports, str | list) or (
            isinstance(exports, dict) and not any(k.startswith(".") for k in exports)):
        exports = {".": exports}  # sugar: the package's one entry
    if not isinstance(exports, dict):
        return []
    if subpath in exports:
        return _flatten(exports[subpath])
    for pattern, entry in exports.items():
        head, star, tail = pattern.partition("*")
        if star and subpath.startswith(head) and subpath.endswith(tail) and len(subpath) >= len(
                head) + len(tail):
            middle = subpath[len(head):len(subpath) - len(tail)]
            return [target.replace("*", middle) for target in _flatten(entry)]
    return []


def _flatten(entry: Any) -> list[str]:
    """The path targets of an exports entry: a string, a list, or nested conditions."""
    if isinstance(entry, str):
        return [entry]
    if isinstance(entry, list):
        return [target for item in entry for target in _flatten(item)]
    if isinstance(entry, dict):
        return [target for value in entry.values() for target in _flatten(value)]
    return []
