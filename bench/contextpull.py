"""ContextPull export and reader speed on Django's source distribution.

Export: the full ``export_directory`` time, and the full ``export_store`` time (the real
path: Django indexed into a temporary store first, untimed), each next to a floor measured
in the same run the same way: inserting the very same section texts (read back from that
export) into a bare FTS5 table in one transaction in a fresh SQLite file. CPU seconds of
this process and of its export workers are shown too, as the machine may be shared.
Re-export: one file of a copy of the corpus changed, re-exported with ``previous=`` the
full export (best of ``--repeat`` runs), as a share of the full export
(``export_directory``; and ``export_store`` over the copy before the store has seen the
change).
Reader: ``search`` latency over 200 developer queries and literal ``grep`` over 30 patterns.
Targets: export <= 2x floor; re-export <= 15% of full; search p50 < 5 ms, p95 < 25 ms.

    python bench/contextpull.py [--rounds N] [--repeat N] [--out docs/benchmarks.md]
                                [--parts directory,store,reader]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report beside us

from _corpus import django_source  # noqa: E402
from _report import load_average, percentile, write_section  # noqa: E402

from repoctx import open_store  # noqa: E402
from repoctx.contextpull import ExportReport, Reader, export_directory, export_store  # noqa: E402
from repoctx.reconcile import PassOptions, reconcile_pass  # noqa: E402
from repoctx.store import Store  # noqa: E402

FLOOR_DDL = (
    "CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, heading_path, text,"
    " tokenize = \"unicode61 remove_diacritics 2 tokenchars '-_.'\")"
)
CHANGED_FILES = ("django/db/models/query.py", "docs/topics/db/queries.txt")
PARTS = ("directory", "store", "reader")

QUERIES = [
    # one word
    "queryset", "middleware", "migrations", "signals", "paginator", "serializers",
    "sessions", "cache", "csrf", "templates", "forms", "admin", "localization", "timezone",
    "transactions", "fixtures", "sitemaps", "syndication", "contenttypes", "postgres",
    "sqlite", "oracle", "mysql", "uuid", "slug", "jsonfield", "asgi", "wsgi",
    "validators", "formsets", "aggregation", "annotations",
    "deprecation", "clickjacking", "logging",
    # identifiers
    "TemplateDoesNotExist", "select_for_update", "prefetch_related", "select_related",
    "get_or_create", "update_or_create", "bulk_create", "ImproperlyConfigured",
    "ObjectDoesNotExist", "MultipleObjectsReturned", "IntegrityError", "ValidationError",
    "HttpResponseRedirect", "JsonResponse", "StreamingHttpResponse",
    "get_object_or_404", "reverse_lazy", "gettext_lazy", "cached_property", "SimpleLazyObject",
    "ModelAdmin", "ModelForm", "ForeignKey", "ManyToManyField", "OneToOneField",
    "GenericForeignKey", "DEFAULT_AUTO_FIELD", "ALLOWED_HOSTS", "SECRET_KEY", "STATIC_ROOT",
    "INSTALLED_APPS", "AUTH_USER_MODEL", "LOGIN_REDIRECT_URL", "CsrfViewMiddleware",
    "SessionMiddleware", "SecurityMiddleware", "RunPython", "RunSQL",
    "AddField", "AlterField", "SeparateDatabaseAndState", "TransactionTestCase",
    "LiveServerTestCase", "override_settings", "assertNumQueries", "RequestFactory",
    "on_commit", "atomic", "F", "Q", "Subquery", "OuterRef", "Exists", "Coalesce",
    "ArrayAgg", "SearchVector", "TrigramSimilarity",
    "PermissionDenied", "SuspiciousOperation", "BaseCommand",
    "call_command", "collectstatic", "makemigrations", "squashmigrations",
    "dumpdata", "loaddata", "createsuperuser", "check_password",
    "make_password", "post_save", "pre_delete", "m2m_changed",
    "sync_to_async", "async_to_sync",
    # two to four words
    "queryset prefetch related", "csrf token middleware", "migration squash",
    "auth backend authenticate", "select_for_update nowait", "custom user model",
    "template context processors", "static files storage", "database router",
    "multiple databases", "raw sql query", "connection cursor execute", "model meta ordering",
    "unique together constraint", "check constraint", "database index", "field choices enum",
    "form clean method", "formset validation", "widget attrs", "admin list_display",
    "admin actions", "admin inline", "url reverse namespace", "path converters",
    "class based views", "generic list view", "login required decorator",
    "permission required mixin", "password reset email", "session expiry",
    "cache page decorator", "cache key prefix", "memcached backend", "redis cache",
    "file upload handler", "media files serving", "email backend smtp",
    "send_mail html message", "translation plural forms", "timezone aware datetime",
    "test client login", "fixtures loading order", "signal receiver decorator",
    "streaming response generator", "conditional get etag", "gzip middleware",
    "content security policy", "secure proxy ssl header", "cross site request forgery",
    "sql injection protection", "clickjacking x frame options", "json serializer natural keys",
    "contenttypes generic relation", "sitemap priority changefreq", "syndication feed rss",
    "postgres full text search", "hstore field", "range fields", "jsonfield key lookup",
    "window functions rank", "conditional expressions case when", "aggregate count distinct",
    "annotate sum group by", "values_list flat", "only defer fields", "iterator chunk size",
    "database transaction rollback", "savepoint rollback", "async views", "asgi lifespan",
    "management command arguments", "system check framework", "deprecation warnings removed",
    "release notes security", "template filter date format", "autoescape off",
    "custom template tag", "inclusion tag", "model field deconstruct",
    "migration dependencies", "data migration RunPython", "reverse migration",
    "foreign key on_delete cascade", "related_name clash", "abstract base class",
    "proxy model", "multi table inheritance", "model manager get_queryset",
    "paginator page range", "message framework levels",
]
assert len(QUERIES) == 200, len(QUERIES)

GREP_PATTERNS = [
    "def get_queryset", "select_for_update", "TemplateDoesNotExist", "raise ValueError",
    "prefetch_related_objects", "class Meta:", "on_delete=models.CASCADE", "from django.db",
    "@cached_property", "import warnings", "RemovedInDjango60Warning", "ALLOWED_HOSTS",
    "csrf_exempt", "transaction.atomic", "sync_to_async", "def __init__(self",
    "gettext_lazy", "self.assertEqual(", "connection.features", "HttpResponseRedirect",
    "assertNumQueries", "SECRET_KEY", "def deconstruct", "get_or_create", "bulk_create",
    "..versionadded:: 5.2", "Content-Type", "X-Frame-Options", "__str__", "TODO",
]
assert len(GREP_PATTERNS) == 30, len(GREP_PATTERNS)


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def floor_seconds(export: Path, workdir: Path) -> tuple[float, int]:
    """Insert the export's section texts into a bare FTS5 table in a fresh file."""
    source = sqlite3.connect(export)
    rows = source.execute("SELECT id, heading_path, text FROM sections").fetchall()
    source.close()
    target = workdir / f"floor-{time.perf_counter_ns()}.db"
    conn = sqlite3.connect(target, isolation_level=None)
    start = time.perf_counter()
    conn.execute(FLOOR_DDL)
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO t(id, heading_path, text) VALUES (?, ?, ?)", rows)
    conn.execute("COMMIT")
    elapsed = time.perf_counter() - start
    conn.close()
    return elapsed, len(rows)



def cpu_seconds() -> tuple[float, float]:
    """CPU seconds (user + system) of this process and of its reaped children so far."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def timed_export(action: Callable[[], ExportReport]) -> tuple[float, float, float, ExportReport]:
    """Wall seconds, CPU seconds here and in workers, and the report of one export."""
    cpu0, kids0 = cpu_seconds()
    start = time.perf_counter()
    report = action()
    wall = time.perf_counter() - start
    cpu1, kids1 = cpu_seconds()
    return wall, cpu1 - cpu0, kids1 - kids0, report


def full_export(
    action: Callable[[Path], ExportReport], out: Path, workdir: Path, repeat: int
) -> dict:
    """Best-of-``repeat`` full export to ``out`` and floor (from that export's sections)."""
    runs, floors = [], []
    for _ in range(repeat):
        runs.append(timed_export(lambda: action(out)))
        floors.append(floor_seconds(out, workdir)[0])
        print(f"{out.name}: {runs[-1][0]:.2f} s, floor {floors[-1]:.2f} s (load {load_average()})",
              file=sys.stderr)  # fmt: skip
    wall, cpu, kids, report = min(runs, key=lambda run: run[0])
    return {"export_s": wall, "cpu_s": cpu, "workers_cpu_s": kids, "floor_s": min(floors),
            "report": report, "runs": [run[0] for run in runs]}  # fmt: skip


def indexed_store(root: Path, workdir: Path) -> Store:
    """Django indexed into a fresh store under ``workdir`` (untimed)."""
    store = open_store(root, repo_id="django", store_dir=workdir / "store")
    start = time.perf_counter()
    reconcile_pass(store, root, PassOptions())
    print(f"indexed into a temp store in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return store


def edited_copy(root: Path, workdir: Path, changed: str) -> tuple[Path, bytes]:
    """The corpus copy with ``changed`` edited; returns the copy and the original bytes.

    The copy keeps the corpus's name (the index header names it, so another name would
    change every index text) and its files' mtimes (a re-export trusts unchanged stats).
    """
    copy = workdir / "corpus" / root.name
    if not copy.exists():
        shutil.copytree(root, copy, symlinks=True)
        os.sync()  # its write-back is not the re-export's to pay (it slowed the first one)
    target = copy / changed
    original = target.read_bytes()
    note = b"\n# bench edit\n" if changed.endswith(".py") else b"\nA bench edit.\n"
    target.write_bytes(original + note)
    return copy, original


def reexport(
    root: Path, workdir: Path, changed: str, export: Callable[[Path, Path, Path], ExportReport],
    previous: Path, repeat: int,
) -> tuple[float, ExportReport]:  # fmt: skip
    """Re-export a copy of the corpus with ``changed`` edited, reusing ``previous``: the
    best of ``repeat`` runs, as for full exports, each after ``os.sync()`` (the write-back
    of the earlier exports is not its to pay; one run once took 0.64 s instead of 0.35)."""
    copy, original = edited_copy(root, workdir, changed)
    out = workdir / f"re-{Path(changed).name}.db"
    try:
        runs = []
        for _ in range(repeat):
            os.sync()
            start = time.perf_counter()
            report = export(copy, out, previous)
            runs.append((time.perf_counter() - start, report))
        return min(runs, key=lambda run: run[0])
    finally:
        (copy / changed).write_bytes(original)  # each change is measured alone


def latencies(action: Callable[[str], object], inputs: list[str], rounds: int) -> list[float]:
    """Milliseconds per call over ``rounds`` passes, after one untimed warm-up pass."""
    for item in inputs:
        action(item)
    samples = []
    for _ in range(rounds):
        for item in inputs:
            samples.append(timed(lambda item=item: action(item)) * 1000)
    return samples


def via_directory(copy: Path, out: Path, previous: Path) -> ExportReport:
    return export_directory(copy, out, previous=previous)


def run_store(root: Path, workdir: Path, repeat: int) -> tuple[dict, tuple]:
    """The full ``export_store`` and its re-export (the ``changes`` row)."""
    with indexed_store(root, workdir) as store:
        full = full_export(lambda out: export_store(store, root, out), workdir / "store.db",
                           workdir, repeat)  # fmt: skip

        def via_store(copy: Path, out: Path, previous: Path) -> ExportReport:
            return export_store(store, copy, out, previous=previous)

        change = reexport(root, workdir, CHANGED_FILES[0], via_store, workdir / "store.db",
                          repeat)
    return full, (CHANGED_FILES[0], "export_store", full["export_s"], *change)


def run(rounds: int, repeat: int, parts: set[str]) -> dict:
    """Measure ``parts`` (``directory``, ``store``, ``reader``; the reader reads the
    directory export, so it runs that export too)."""
    root = django_source()
    start_load = load_average()
    result: dict = {"root": root, "changes": []}
    with tempfile.TemporaryDirectory(prefix="bench-contextpull-") as tmp:
        workdir = Path(tmp)
        if parts & {"directory", "reader"}:
            result["directory"] = full_export(lambda out: export_directory(root, out),
                                              workdir / "full.db", workdir, repeat)  # fmt: skip
        if "store" in parts:
            result["store"], change = run_store(root, workdir, repeat)
            result["changes"].append(change)
        if "directory" in parts:
            full_s = result["directory"]["export_s"]
            result["changes"][:0] = [
                (name, "export_directory", full_s,
                 *reexport(root, workdir, name, via_directory, workdir / "full.db", repeat))
                for name in CHANGED_FILES
            ]  # fmt: skip
        if "reader" in parts:
            with Reader(workdir / "full.db") as reader:
                result["search_ms"] = latencies(reader.search, QUERIES, rounds)
                result["grep_ms"] = latencies(reader.grep, GREP_PATTERNS, rounds)
                result["empty"] = sum(1 for q in QUERIES if not reader.search(q)["hits"])
    result["load"] = (start_load, load_average())
    return result


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def export_row(name: str, r: dict) -> str:
    rep: ExportReport = r["report"]
    ratio = r["export_s"] / r["floor_s"]
    runs = ", ".join(f"{x:.2f}" for x in r["runs"])
    return (
        f"| full `{name}` ({rep.documents:,} documents, {rep.sections:,} sections) "
        f"| {r['export_s']:.2f} s | floor {r['floor_s']:.2f} s (bare FTS5 insert of these "
        f"sections); {ratio:.1f}x; CPU {r['cpu_s']:.2f} s here + {r['workers_cpu_s']:.2f} s "
        f"in workers; runs {runs} | <= 2x floor: {verdict(ratio <= 2)} |"
    )


def reader_rows(r: dict) -> list[str]:
    s50, s95 = percentile(r["search_ms"], 50), percentile(r["search_ms"], 95)
    g50, g95 = percentile(r["grep_ms"], 50), percentile(r["grep_ms"], 95)
    return [
        f"| search p50 / p95 ({len(QUERIES)} queries, n = {len(r['search_ms']):,}) "
        f"| {s50:.2f} / {s95:.2f} ms | max {max(r['search_ms']):.1f} ms; "
        f"{r['empty']} queries without hits | p50 < 5 ms: {verdict(s50 < 5)}, "
        f"p95 < 25 ms: {verdict(s95 < 25)} |",
        f"| grep literal p50 / p95 ({len(GREP_PATTERNS)} patterns, n = {len(r['grep_ms']):,}) "
        f"| {g50:.1f} / {g95:.1f} ms | max {max(r['grep_ms']):.1f} ms | (none) |",
    ]


def table(r: dict) -> str:
    lines = ["| measure | value | reference | target |", "| --- | ---: | ---: | --- |"]
    lines += [export_row(f"export_{name}", r[name]) for name in ("directory", "store") if name in r]
    for name, how, full_s, seconds, re_rep in r["changes"]:
        share = seconds / full_s
        lines.append(
            f"| re-export (`{how}`), `{name}` changed ({re_rep.reused:,} reused, "
            f"{re_rep.sectioned} sectioned) | {seconds:.2f} s | {share:.1%} of its full export "
            f"| <= 15%: {verdict(share <= 0.15)} |")  # fmt: skip
    if "search_ms" in r:
        lines += reader_rows(r)
    lines += [
        "",
        f"- {os.cpu_count()} cores, shared with other work: load average (1/5 min) "
        f"{r['load'][0]} at the start, {r['load'][1]} at the end.",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the queries")
    parser.add_argument("--repeat", type=int, default=1, help="full exports (best is kept)")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument("--parts", default=",".join(PARTS),
                        help=f"comma-separated subset of {', '.join(PARTS)} (default: all)")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    if not parts or not parts <= set(PARTS):
        parser.error(f"--parts takes a comma-separated subset of {', '.join(PARTS)}")
    result = run(args.rounds, args.repeat, parts)
    body = table(result)
    print(body)
    title = (f"ContextPull export and reader ({result['root'].name} sdist; targets: export "
             "<= 2x floor, re-export <= 15%, search p50 < 5 ms and p95 < 25 ms)")
    write_section(args.out, "contextpull", title, body)


if __name__ == "__main__":
    main()
