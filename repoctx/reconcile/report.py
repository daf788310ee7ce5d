"""reconcile/report — what one pass did, for people (text) and machines (JSON)."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from repoctx.camel import camel_keys

if TYPE_CHECKING:
    from repoctx.reconcile.nodes.file_node import Lent


@dataclass
class PassReport:
    """Counters of one reconcile pass; filled in as the pass runs."""

    repo_id: str
    scanned: int = 0
    added: int = 0
    changed: int = 0
    touched: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    skipped_paths: dict[str, list[str]] = field(default_factory=dict)
    symbols_written: int = 0
    xref_edges_written: int = 0
    backfilled: Counter[str] = field(default_factory=Counter)
    records_written: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    coverage: dict[str, Any] | None = None
    """What the coverage ingestion found (``CoverageReport.as_json``); None without data."""
    nodes: Lent | None = field(default=None, repr=False, compare=False)
    """The pass's scan of the file nodes, for the export after it (``file_node.Lent``);
    None when the pass wrote nothing or did not scan. Not part of the JSON."""

    def skip(self, path: str, reason: str) -> None:
        """Count a file left out, keeping the first few paths per reason."""
        self.skipped[reason] += 1
        paths = self.skipped_paths.setdefault(reason, [])
        if len(paths) < 20:
            paths.append(path)

    def as_json(self) -> dict[str, Any]:
        """The report as plain JSON-able values, keyed in camelCase like every answer."""
        out = asdict(replace(self, nodes=None))
        del out["nodes"]
        out["skipped"] = dict(self.skipped)
        out["backfilled"] = dict(self.backfilled)
        out["seconds"] = {k: round(v, 4) for k, v in self.seconds.items()}
        return camel_keys(out)

    def text(self) -> str:
        """A short human summary."""
        skipped = ", ".join(f"{n} {r}" for r, n in sorted(self.skipped.items())) or "none"
        lines = [
            f"indexed {self.repo_id}: {self.scanned} files scanned, {self.added} added, "
            f"{self.changed} changed, {self.touched} touched, {self.unchanged} unchanged, "
            f"{self.removed} removed",
            f"  skipped: {skipped}",
            f"  symbols written {self.symbols_written}, xref edges {self.xref_edges_written}, "
            f"back-filled {dict(self.backfilled) or 0}, records written {self.records_written}",
            f"  {self.seconds.get('total', 0):.2f}s",
        ]
        if self.coverage is not None:
            lines.append(f"  coverage: {self.coverage['files']} files, "
                         f"{self.coverage['contexts']} tests, {self.coverage['stale']} stale")
        lines += [f"  warning: {w}" for w in self.warnings]
        return "\n".join(lines)
