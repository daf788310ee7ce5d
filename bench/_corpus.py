"""Shared by the benchmarks: real corpora (Django's and Flask's source distributions),
cached locally.

``django_source()`` (and ``flask_source()``) downloads the sdist once with pip
(``--no-binary :all:`` so it is the ``.tar.gz``, not a wheel), extracts it once under
``bench/.cache/`` refusing any member that would land outside that folder, and returns the
extracted root. Later calls find the extracted folder and touch neither pip nor the network.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path

CACHE = (Path(__file__).resolve().parent / ".cache").resolve()
"""Resolved: a worktree may link its ``.cache`` to another checkout's, and test runners
name files by their real paths (pytest's node ids, V8 coverage's URLs)."""
DOWNLOADS = CACHE / "dl"
_MARKER = ".extracted"


@dataclass(frozen=True)
class Sdist:
    """A project's newest sdist of one release series, e.g. django 5.2.x."""

    project: str
    series: str

    @property
    def spec(self) -> str:
        """What pip is asked for."""
        return f"{self.project}=={self.series}.*"

    def version(self, name: str) -> tuple[int, ...]:
        """The version in an sdist file name of this series, () for any other name."""
        pattern = rf"^{self.project}-({re.escape(self.series)}(?:\.\d+)*)\.tar\.gz$"
        match = re.match(pattern, name, re.IGNORECASE)
        return tuple(int(p) for p in match.group(1).split(".")) if match else ()


DJANGO = Sdist("django", "5.2")
FLASK = Sdist("flask", "3.1")
DJANGO_SPEC = DJANGO.spec


class CorpusError(RuntimeError):
    """The corpus could not be fetched or unpacked."""


def _log(message: str) -> None:
    print(f"[corpus] {message}", file=sys.stderr)


def _newest(folder: Path, sdist: Sdist) -> Path | None:
    """The newest sdist of ``sdist``'s series in ``folder``."""
    found = [p for p in folder.glob("*.tar.gz") if sdist.version(p.name)]
    return max(found, key=lambda p: sdist.version(p.name), default=None)


def _pip_download(spec: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
               "--disable-pip-version-check", spec, "-d", str(DOWNLOADS)]
    _log(f"downloading {spec} sdist: {' '.join(command[1:])}")
    return subprocess.run(command, capture_output=True, text=True, check=False)


def _fallback_specs(stderr: str, sdist: Sdist = DJANGO) -> list[str]:
    """Exact versions of the series pip said exist, newest first (for when the wildcard
    fails)."""
    listed = re.search(r"from versions: ([^)]*)\)", stderr)
    versions = [v.strip() for v in listed.group(1).split(",")] if listed else []
    wanted = [v for v in versions if re.fullmatch(rf"{re.escape(sdist.series)}(\.\d+)?", v)]
    wanted.sort(key=lambda v: tuple(int(p) for p in v.split(".")), reverse=True)
    return [f"{sdist.project}=={v}" for v in wanted]


def _download(sdist: Sdist) -> Path:
    DOWNLOADS.mkdir(parents=True, exist_ok=True)
    result = _pip_download(sdist.spec)
    if result.returncode != 0:
        for spec in _fallback_specs(result.stderr, sdist)[:3]:
            result = _pip_download(spec)
            if result.returncode == 0:
                break
    archive = _newest(DOWNLOADS, sdist)
    if result.returncode != 0 or archive is None:
        tail = "\n".join((result.stderr or result.stdout).strip().splitlines()[-5:])
        raise CorpusError(
            f"could not download the {sdist.project} {sdist.series} sdist with pip (is the "
            f"package index reachable from here?)\n{tail}"
        )
    _log(f"downloaded {archive.name} ({archive.stat().st_size / 1e6:.1f} MB)")
    return archive


def _safe_extract(archive: Path, into: Path) -> Path:
    """Extract ``archive`` into ``into``; return the single top-level folder it holds."""
    base = into.resolve()
    with tarfile.open(archive, "r:gz") as tar:
        members = tar.getmembers()
        for member in members:
            target = (base / member.name).resolve()
            link = (target.parent / member.linkname).resolve() if member.issym() else base
            if member.islnk():
                link = (base / member.linkname).resolve()
            if not (target.is_relative_to(base) and link.is_relative_to(base)):
                raise CorpusError(f"refusing archive member {member.name!r} of {archive.name}")
        tops = {Path(m.name).parts[0] for m in members if m.name}
        if len(tops) != 1:
            raise CorpusError(f"{archive.name} has {len(tops)} top-level entries, expected 1")
        tar.extractall(base, members=members, filter="data")
    root = base / tops.pop()
    _marker(root).touch()  # beside the root, not inside: the corpus stays byte-identical
    return root


def _marker(root: Path) -> Path:
    return root.with_name(root.name + _MARKER)


def _extracted(sdist: Sdist) -> Path | None:
    roots = [p.with_name(p.name.removesuffix(_MARKER)) for p in CACHE.glob("*" + _MARKER)]
    roots = [r for r in roots if r.is_dir() and sdist.version(r.name + ".tar.gz")]
    return max(roots, key=lambda p: sdist.version(p.name + ".tar.gz"), default=None)


def source(sdist: Sdist) -> Path:
    """The root of ``sdist``'s extracted source under ``bench/.cache/`` (cached)."""
    root = _extracted(sdist)
    if root is not None:
        return root
    archive = (_newest(DOWNLOADS, sdist) if DOWNLOADS.is_dir() else None) or _download(sdist)
    _log(f"extracting {archive.name} into {CACHE}")
    return _safe_extract(archive, CACHE)


def django_source() -> Path:
    """The root of Django 5.2.x's extracted sdist under ``bench/.cache/`` (cached)."""
    return source(DJANGO)


def flask_source() -> Path:
    """The root of Flask 3.1.x's extracted sdist under ``bench/.cache/`` (cached)."""
    return source(FLASK)


if __name__ == "__main__":
    print(django_source())
