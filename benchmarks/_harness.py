"""Shared helpers of the benchmark scripts (the only one; import it, never copy it).

- In-process measurement: :func:`measure` (wall and CPU time, peak memory of one call).
- One fit in a fresh process: :func:`run_job` starts ``python benchmarks/_harness.py
  '<json job>'`` (this file as a script, under ufsel's interpreter or the separate
  scikit-feature venv, ``SKF_PYTHON``) and returns the JSON line that :func:`worker_main`
  prints: wall time of the fit and its peak resident memory.
- The checked-in leaderboard's data sets, with their feature counts and each protocol's
  cluster count (:func:`leaderboard_datasets`).
- Reading a leaderboard run's ``results.csv`` (:func:`read_leaderboard`) and FSEVAL's
  protocol (:data:`RATIOS`, :func:`ratio_counts`, :func:`ratio_mean`, :func:`fseval_scores`).

Scripts in ``benchmarks/<folder>/`` import it after putting ``benchmarks/`` on
``sys.path``::

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _harness import measure  # noqa: E402

It imports only the standard library and NumPy at module level (the scikit-feature venv
has no ufsel installed; ufsel comes from ``src/`` on ``PYTHONPATH``).
"""

from __future__ import annotations

import csv
import json
import math
import os
import resource
import subprocess
import sys
import time
import tracemalloc
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
HARNESS = Path(__file__).resolve()
LEADERBOARD_SUMMARY = ROOT / "benchmarks" / "results" / "leaderboard" / "summary.json"


def leaderboard_datasets():
    """The checked-in leaderboard's data sets: name -> its ``summary.json`` entry
    (``name`` to load, ``n_samples``, ``n_features``, ``counts``, and ``n_clusters``
    per protocol), what one leaderboard fit of a selector uses."""
    return json.loads(LEADERBOARD_SUMMARY.read_text(encoding="utf-8"))["datasets"]


# --- in-process measurement ---

@dataclass
class Measurement:
    wall: float
    cpu: float
    peak_traced_mib: float
    max_rss_mib: float
    warnings: list = field(default_factory=list)


def measure(fn, *args, **kwargs):
    """Run ``fn(*args, **kwargs)``; return its result and a :class:`Measurement`.

    ``peak_traced_mib`` is tracemalloc's peak of the allocations made during
    the call (NumPy reports its buffers to tracemalloc); ``max_rss_mib`` is the
    process's maximum resident set size so far (everything, data included).
    """
    tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    return result, Measurement(wall, cpu, peak / 2**20, rss,
                               [str(w.message) for w in caught])


# --- one fit in a fresh process ---


#: The interpreter of the separate scikit-feature venv (never a ufsel dependency):
#: python3 -m venv /tmp/skf-venv && /tmp/skf-venv/bin/pip install skfeature-chappers
SKF_PYTHON = os.environ.get("SKF_PYTHON", "/tmp/skf-venv/bin/python")

#: Benchmark parameters per method (the papers' usual settings for 10-class
#: data); methods not listed run with their defaults.
BENCH_PARAMS = {
    "mcfs": {"n_clusters": 10, "n_neighbors": 5, "random_state": 0},
    "laplacianscore": {"n_neighbors": 5, "random_state": 0},
    "spcafs": {"n_components": 9, "gamma": 1.0, "random_state": 0},
    "ufsa": {"n_clusters": 10, "random_state": 0},
    "rsfs": {"n_clusters": 10, "random_state": 0},
    "lgdfs": {"n_clusters": 10, "random_state": 0},
}


def skfeature_available():
    if not Path(SKF_PYTHON).exists():
        return False
    r = subprocess.run([SKF_PYTHON, "-c", "import skfeature"], capture_output=True)
    return r.returncode == 0


def run_job(job, *, python=None, timeout=1800, script=HARNESS):
    """Run one job of :func:`worker_main` in a fresh process; returns its result dict or ``{"error": ...}``.

    ``script``: another script that takes the JSON job as its one argument and prints
    ``RESULT <json>`` the same way (its own worker)."""
    # this checkout's source first; a PYTHONPATH already set (an optional package kept
    # outside the environment) stays after it
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH", "")) if p))
    cmd = [python or sys.executable, str(script), json.dumps(job)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        peak = _peak_mib(proc.pid)  # the high-water mark reached so far (data included)
        proc.kill()
        proc.communicate()
        return {"error": f"timeout after {timeout} s (peak so far {peak:.0f} MiB)",
                "timeout_s": timeout, "peak_mib_at_timeout": peak}
    for line in stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    tail = (stderr or stdout).strip().splitlines()[-1:] or ["no output"]
    if proc.returncode < 0 or "MemoryError" in tail[0]:
        return {"error": f"killed / out of memory ({tail[0][:120]})"}
    return {"error": tail[0][:200]}


def _peak_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def fmt(res, key, spec="{:.2f}"):
    if "error" in res:
        return "-"
    return spec.format(res[key])


def ratio(ufsel_res, skf_res):
    """scikit-feature time / ufsel time; a lower bound (">=") when scikit-feature timed out."""
    if "error" in ufsel_res or skf_res is None:
        return "-"
    if "timeout_s" in skf_res:
        return f">= {skf_res['timeout_s'] / ufsel_res['wall_s']:.0f}x"
    if "error" in skf_res:
        return "-"
    return f"{skf_res['wall_s'] / ufsel_res['wall_s']:.1f}x"


def fmt_skf(res, key, spec="{:.2f}"):
    """Like :func:`fmt`, but a timed-out run shows "> timeout" (and its peak so far)."""
    if res is None:
        return "not run"
    if "timeout_s" in res:
        return (f"> {res['timeout_s']}" if key == "wall_s"
                else f">= {res['peak_mib_at_timeout']:.0f}")
    return fmt(res, key, spec)


def _status_kib(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")  # reset VmHWM to the current RSS
        return True
    except OSError:  # pragma: no cover - not Linux / not permitted
        return False


def load(spec):
    """The benchmark data: a data set name, ``mnist70k``, ``tfidf:N:D:DENSITY`` or
    ``planted:N:D:INFORMATIVE`` (float32, ``random_state=0``)."""
    from ufsel.datasets import load_dataset, make_mnist70k_like, make_planted, make_sparse_tfidf

    if spec == "mnist70k":
        return make_mnist70k_like(random_state=0).data
    if spec.startswith("tfidf:"):
        _, n, d, density = spec.split(":")
        return make_sparse_tfidf(int(n), int(d), density=float(density), random_state=0).data
    if spec.startswith("planted:"):
        _, n, d, informative = spec.split(":")
        return make_planted(int(n), int(d), int(informative), random_state=0)[0]
    return load_dataset(spec).data


# scikit-feature's implementations, called as its own docs show (construct_W
# with a 5-NN graph, then the method)
def _skf_mcfs(X, k, n_clusters=10, n_neighbors=5, **_):
    from skfeature.function.sparse_learning_based.MCFS import mcfs
    from skfeature.utility.construct_W import construct_W

    W = construct_W(X, neighbor_mode="knn", weight_mode="binary", k=n_neighbors)
    return mcfs(X, n_selected_features=k, W=W, n_clusters=n_clusters)


def _skf_lap_score(X, k, n_neighbors=5, **_):
    from skfeature.function.similarity_based.lap_score import lap_score
    from skfeature.utility.construct_W import construct_W

    W = construct_W(X, neighbor_mode="knn", weight_mode="heat_kernel", k=n_neighbors, t=1)
    return lap_score(X, W=W)


def _skf_spec(X, k, **_):
    from skfeature.function.similarity_based.SPEC import spec

    return spec(X)


def _skf_udfs(X, k, n_clusters=10, **_):
    from skfeature.function.sparse_learning_based.UDFS import udfs

    return udfs(X, n_clusters=n_clusters)


def _skf_ndfs(X, k, n_clusters=10, **_):
    from skfeature.function.sparse_learning_based.NDFS import ndfs
    from skfeature.utility.construct_W import construct_W

    W = construct_W(X, neighbor_mode="knn", weight_mode="heat_kernel", k=5, t=1)
    return ndfs(X, W=W, n_clusters=n_clusters)


SKFEATURE = {"mcfs": _skf_mcfs, "laplacianscore": _skf_lap_score, "spec": _skf_spec,
             "udfs": _skf_udfs, "ndfs": _skf_ndfs}


def spcafs_flops(X, reps=3):
    """GFLOP/s of SPCAFS's scatter step and of a plain NumPy ``X^T X`` (best of ``reps``)."""
    from ufsel.linalg import scatter_matrix

    n, d = X.shape
    flops = 2.0 * n * d * d
    best = {}
    for name, fn in (("numpy_matmul", lambda: X.T @ X), ("scatter_matrix", lambda: scatter_matrix(X))):
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        best[name] = flops / min(times) / 1e9
    return best


def measure_fit(fit):
    """Run ``fit()`` once in this (fresh) process: its result and a dict of wall and CPU
    seconds, the load average before and after, and the peak resident memory (``VmHWM``,
    reset first where the kernel allows: ``peak_exact``) with its increase over the
    resident memory before the call."""
    exact_peak = _reset_peak()
    rss0 = _status_kib("VmRSS")
    load0 = os.getloadavg()[0]
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = fit()
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    peak = _status_kib("VmHWM")
    return result, {
        "wall_s": wall, "cpu_s": (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime),
        "load_before": load0, "load_after": os.getloadavg()[0],
        "peak_mib": peak / 1024, "peak_increase_mib": (peak - rss0) / 1024,
        "rss_before_mib": rss0 / 1024, "peak_exact": exact_peak}


def worker_main(job):
    """Fit ``job`` (method, data, impl, params) once and print ``RESULT <json>``."""
    X = load(job["data"])
    if job.get("dtype") == "float32":
        X = X.astype(np.float32)
    k = min(job.get("k", 50), X.shape[1])
    params = job.get("params", {})
    if job["impl"] == "skfeature":
        from scipy import sparse

        if sparse.issparse(X):
            X = X.toarray()  # scikit-feature needs dense arrays
        fit = lambda: SKFEATURE[job["method"]](X, k, **params)  # noqa: E731
    else:
        from ufsel import get_selector

        est = get_selector(job["method"])(n_features_to_select=k, **params)
        fit = lambda: est.fit(X)  # noqa: E731
    _, out = measure_fit(fit)
    out.update(n_samples=X.shape[0], n_features=X.shape[1])
    if job["impl"] == "ufsel":
        for attr in ("n_iter_", "solver_"):
            if hasattr(est, attr):
                out[attr] = getattr(est, attr)
        if job.get("top"):
            out["top"] = np.argsort(est.ranking_, kind="stable")[:job["top"]].tolist()
        if job["method"] == "spcafs" and job.get("flops", True) and not hasattr(X, "nnz"):
            out["gflops"] = spcafs_flops(np.ascontiguousarray(X))
    print("RESULT " + json.dumps(out, default=str))




# --- leaderboard results and FSEVAL's protocol ---

PROTOCOL = "n_classes"


def ratio_counts(d, ratios):
    """k = ceil(p d) for each ratio, with repeats (FSEVAL averages over the ratios)."""
    return [max(1, math.ceil(round(p * d, 9))) for p in ratios]


def read_leaderboard(path, protocol=PROTOCOL):
    """``{dataset: {method: {"acc": {k: v}, "nmi": {k: v}}}}``, counts k with a value only.

    Each method at its defaults under ``protocol``, plus the baselines ``random`` and
    ``all_features`` (which have no protocol).
    """
    out = defaultdict(lambda: defaultdict(lambda: {"acc": {}, "nmi": {}}))
    with open(path, newline="") as fh:
        for r in csv.DictReader(fh):
            if r["metric"] not in ("acc", "nmi"):
                continue
            if r["method"] not in ("random", "all_features") and (
                    r["protocol"] != protocol or r["tuning"] != "defaults"):
                continue
            if r["status"] == "ok" and r["value"] != "":
                out[r["dataset"]][r["method"]][r["metric"]][int(r["n_features"])] = float(r["value"])
    return out


def ratio_mean(values, ks):
    """Mean over the ratios, or None when a count is missing (timed out, failed)."""
    if any(k not in values for k in ks):
        return None
    return float(np.mean([values[k] for k in ks]))

#: FSEVAL's feature ratios 0.5 %, 1 %, ..., 10 % of d.
RATIOS = np.round(np.arange(0.005, 0.1001, 0.005), 3)


def fseval_scores(X, y, order):
    """Mean over FSEVAL's 20 ratios of the mean ACC and NMI (max normaliser) over k-means
    seeds 0..9, both in %: ``(acc, nmi)``."""
    from sklearn.cluster import KMeans

    from ufsel.metrics import clustering_accuracy, normalized_mutual_info

    n_classes = np.unique(y).size
    d = X.shape[1]
    acc, nmi = [], []
    for p in RATIOS:
        k = max(1, min(math.ceil(round(p * d, 9)), d))
        Xs = X[:, order[:k]]
        labels = [KMeans(n_clusters=n_classes, random_state=seed, n_init="auto").fit(Xs).labels_
                  for seed in range(10)]
        acc.append(np.mean([clustering_accuracy(y, lab) for lab in labels]))
        nmi.append(np.mean([normalized_mutual_info(y, lab) for lab in labels]))
    return 100 * float(np.mean(acc)), 100 * float(np.mean(nmi))



if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    worker_main(json.loads(sys.argv[1]))
