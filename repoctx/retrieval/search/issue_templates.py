"""retrieval/search/issue_templates — an issue template's boilerplate, taken out of a pasted task.

Pure; no I/O. An issue filed through a repository's template (``.github/ISSUE_TEMPLATE/``,
GitLab's ``.gitlab/issue_templates/``, an ``ISSUE_TEMPLATE.md``) repeats the template's
headings and hints ("**Describe the bug**", "Steps to reproduce the behavior:", "- Python
version: 3.8"), whatever the bug. Those words match the template itself, the install docs
and every module that prints a version, and they crowd out the words the reporter wrote.
So the template's lines are read from the repository (a Markdown template line by line,
an issue form's field labels, which GitHub renders as ``### Label`` headings), and a task
loses the lines it shares with them; a ``Label: answer`` line keeps its answer.
Lines compare by their words alone (case, emphasis, bullets and punctuation aside).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

_WORDS = re.compile(r"[a-z0-9]+")
_FORM_LABEL = re.compile(r"^\s*-?\s*label:\s*[\"']?(.+?)[\"']?\s*$", re.M)
_LABELLED = re.compile(r"^\s*(?:[-*+]\s+)?\**([^:\n]{1,60}?)\**\s*:(.*)$")
_FORM_SUFFIXES = (".yml", ".yaml")
_TEXT_SUFFIXES = (".md", ".markdown", ".txt", "")
LABEL_WORDS = 6
"""Most words of a label (``Python version``, ``Steps to reproduce``); a longer text
before a colon is a sentence, kept whole."""


@dataclass(frozen=True)
class Boilerplate:
    """What a repository's issue templates write: their lines and labels, as words."""

    lines: frozenset[str] = frozenset()
    labels: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.lines or self.labels)



def is_issue_template(path: str) -> bool:
    """True for an issue template as GitHub and GitLab find them (a Markdown template
    or a GitHub issue form; not the template folder's ``config.yml``)."""
    pure = PurePosixPath(path.lower())
    folders = pure.parts[:-1]
    if pure.name == "config.yml" or pure.suffix not in (*_FORM_SUFFIXES, *_TEXT_SUFFIXES):
        return False
    return ("issue_template" in folders or "issue_templates" in folders
            or pure.stem == "issue_template")


def boilerplate(templates: Iterable[tuple[str, str]]) -> Boilerplate:
    """The boilerplate of ``(path, text)`` issue templates (issue forms by their labels)."""
    lines: set[str] = set()
    labels: set[str] = set()
    for path, text in templates:
        if path.lower().endswith(_FORM_SUFFIXES):
            written = _FORM_LABEL.findall(text)
        else:
            written = text.splitlines()
        for line in written:
            words = _normal(line)
            if words:
                lines.add(words)
            label = _label(line)
            if label is not None:
                labels.add(label[0])
    return Boilerplate(frozenset(lines), frozenset(labels))


def without_boilerplate(task: str, known: Boilerplate) -> str:
    """``task`` without the lines a template wrote; a labelled line (``- OS: Mac``) whose
    label a template writes keeps what follows the label. The task as it was when
    nothing of it would be left."""
    if not known:
        return task
    kept = []
    for line in task.splitlines():
        if _normal(line) in known.lines:
            continue
        label = _label(line)
        if label is not None and label[0] in known.labels:
            line = label[1]
        kept.append(line)
    out = "\n".join(kept)
    return out if _WORDS.search(out.lower()) else task


def _normal(line: str) -> str:
    """A line's words, lowercase, one space apart ('' when it has none)."""
    return " ".join(_WORDS.findall(line.lower()))


def _label(line: str) -> tuple[str, str] | None:
    """``(label's words, the rest)`` of a ``Label: rest`` line, else None."""
    match = _LABELLED.match(line)
    if match is None:
        return None
    label = _normal(match.group(1))
    if not label or len(label.split()) > LABEL_WORDS:
        return None
    return label, match.group(2)
