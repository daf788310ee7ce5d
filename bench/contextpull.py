"""ContextPull export and reader speed on Django's source distribution (issue 4).

Export: the full ``export_directory`` time next to a floor measured in the same run,
inserting the very same section texts (read back from the export) into a bare FTS5 table
in one transaction in a fresh SQLite file. Re-export: one file of a copy of the corpus
changed, re-exported with ``previous=`` the full export, as a share of the full export.
Reader: ``search`` latency over 200 developer queries and literal ``grep`` over 30 patterns.
Targets: export <= 2x floor; re-export <= 15% of full; search p50 < 5 ms, p95 < 25 ms.

    python bench/contextpull.py [--rounds N] [--repeat N] [--out docs/benchmarks.md]
"""

from __future__ import annotations

import argparse
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _corpus, _report beside us

from _corpus import django_source  # noqa: E402
from _report import write_section  # noqa: E402

from repoctx.contextpull import ExportReport, Reader, export_directory  # noqa: E402

FLOOR_DDL = (
    "CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, heading_path, text,"
    " tokenize = \"unicode61 remove_diacritics 2 tokenchars '-_.'\")"
)
CHANGED_FILES = ("django/db/models/query.py", "docs/topics/db/queries.txt")

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


def full_export(root: Path, workdir: Path, repeat: int) -> tuple[float, float, ExportReport]:
    """Best-of-``repeat`` full export and floor; the export last written stays at full.db."""
    exports, floors = [], []
    report = None
    for _ in range(repeat):
        start = time.perf_counter()
        report = export_directory(root, workdir / "full.db")
        exports.append(time.perf_counter() - start)
        floors.append(floor_seconds(workdir / "full.db", workdir)[0])
    assert report is not None
    return min(exports), min(floors), report


def reexport(root: Path, workdir: Path, changed: str) -> tuple[float, ExportReport]:
    """Re-export a copy of the corpus with ``changed`` edited, reusing full.db."""
    copy = workdir / "corpus"
    if not copy.exists():
        shutil.copytree(root, copy, symlinks=True)
    target = copy / changed
    original = target.read_bytes()
    note = b"\n# bench edit\n" if changed.endswith(".py") else b"\nA bench edit.\n"
    target.write_bytes(original + note)
    out = workdir / f"re-{Path(changed).name}.db"
    try:
        start = time.perf_counter()
        report = export_directory(copy, out, previous=workdir / "full.db")
        return time.perf_counter() - start, report
    finally:
        target.write_bytes(original)  # each change is measured alone against full.db


def latencies(action: Callable[[str], object], inputs: list[str], rounds: int) -> list[float]:
    """Milliseconds per call over ``rounds`` passes, after one untimed warm-up pass."""
    for item in inputs:
        action(item)
    samples = []
    for _ in range(rounds):
        for item in inputs:
            samples.append(timed(lambda item=item: action(item)) * 1000)
    return samples


def percentile(samples: list[float], p: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[p - 1]


def run(rounds: int, repeat: int) -> dict:
    root = django_source()
    with tempfile.TemporaryDirectory(prefix="bench-contextpull-") as tmp:
        workdir = Path(tmp)
        export_s, floor_s, report = full_export(root, workdir, repeat)
        changes = [(name, *reexport(root, workdir, name)) for name in CHANGED_FILES]
        with Reader(workdir / "full.db") as reader:
            search_ms = latencies(reader.search, QUERIES, rounds)
            grep_ms = latencies(reader.grep, GREP_PATTERNS, rounds)
            empty = sum(1 for q in QUERIES if not reader.search(q)["hits"])
    return {"root": root, "report": report, "export_s": export_s, "floor_s": floor_s,
            "changes": changes, "search_ms": search_ms, "grep_ms": grep_ms, "empty": empty}


def verdict(ok: bool) -> str:
    return "met" if ok else "**missed**"


def table(r: dict) -> str:
    rep: ExportReport = r["report"]
    ratio = r["export_s"] / r["floor_s"]
    s50, s95 = percentile(r["search_ms"], 50), percentile(r["search_ms"], 95)
    g50, g95 = percentile(r["grep_ms"], 50), percentile(r["grep_ms"], 95)
    lines = [
        "| measure | value | reference | target |",
        "| --- | ---: | ---: | --- |",
        f"| full export ({rep.documents:,} documents, {rep.sections:,} sections) "
        f"| {r['export_s']:.2f} s | floor {r['floor_s']:.2f} s (bare FTS5 insert); "
        f"{ratio:.1f}x | <= 2x floor: {verdict(ratio <= 2)} |",
    ]
    for name, seconds, re_rep in r["changes"]:
        share = seconds / r["export_s"]
        lines.append(
            f"| re-export, `{name}` changed ({re_rep.reused:,} reused, "
            f"{re_rep.sectioned} sectioned) | {seconds:.2f} s | {share:.1%} of full export "
            f"| <= 15%: {verdict(share <= 0.15)} |")
    lines += [
        f"| search p50 / p95 ({len(QUERIES)} queries, n = {len(r['search_ms']):,}) "
        f"| {s50:.2f} / {s95:.2f} ms | max {max(r['search_ms']):.1f} ms; "
        f"{r['empty']} queries without hits | p50 < 5 ms: {verdict(s50 < 5)}, "
        f"p95 < 25 ms: {verdict(s95 < 25)} |",
        f"| grep literal p50 / p95 ({len(GREP_PATTERNS)} patterns, n = {len(r['grep_ms']):,}) "
        f"| {g50:.1f} / {g95:.1f} ms | max {max(r['grep_ms']):.1f} ms | (none) |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the queries")
    parser.add_argument("--repeat", type=int, default=1, help="full exports (best is kept)")
    parser.add_argument("--out", type=Path, default=Path("docs/benchmarks.md"))
    args = parser.parse_args()
    result = run(args.rounds, args.repeat)
    body = table(result)
    print(body)
    title = (f"ContextPull export and reader ({result['root'].name} sdist; targets: export "
             "<= 2x floor, re-export <= 15%, search p50 < 5 ms and p95 < 25 ms)")
    write_section(args.out, "contextpull", title, body)


if __name__ == "__main__":
    main()
