"""reconcile/pool: in process below the threshold, a process pool above; same answers."""

import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

from repoctx.reconcile import pool
from repoctx.reconcile.analyse import Job, analyse


def test_in_process_and_pool_give_the_same_results_in_order(tmp_path):
    n = pool.POOL_THRESHOLD
    for i in range(n):
        (tmp_path / f"m{i}.py").write_text(f"def f{i}(x):\n    return g{i}(x)\n")
    jobs = [Job(f"m{i}.py", content=True, symbols=True) for i in range(n)]
    in_process = list(pool.analyse_all(str(tmp_path), jobs, None))
    with pool.worker_pool(2) as workers:
        pooled = list(pool.analyse_all(str(tmp_path), jobs, workers))
    assert pooled == in_process
    assert [a.path for a in pooled] == [j.path for j in jobs]
    assert "g5" in pooled[5].decls["m5.f5"].refs


def test_few_jobs_never_start_a_pool(tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("x = 1\n")

    def no_pool(*args, **kwargs):
        raise AssertionError("a pool was started")

    monkeypatch.setattr(ProcessPoolExecutor, "submit", no_pool)
    jobs = [Job("a.py", content=True, symbols=True)] * (pool.POOL_THRESHOLD - 1)
    with pool.worker_pool(8) as workers:
        got = list(pool.analyse_all(str(tmp_path), jobs, workers))
    assert got == [analyse(str(tmp_path), jobs[0])] * len(jobs)


def test_importing_the_pool_loads_no_process_machinery():
    """A one-file pass imports ``pool`` but starts none: multiprocessing and the process
    executor are imported only by ``worker_pool`` (~10 ms of a one-file index)."""
    code = ("import sys; import repoctx.reconcile.pool, repoctx.reconcile.xref_journal; "
            "print(sorted(m for m in ('multiprocessing', 'concurrent.futures.process')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
