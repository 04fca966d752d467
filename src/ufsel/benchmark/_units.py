"""The units of work of a benchmark run, executed in worker processes.

Two kinds of unit, each cached on its own:

* a *fit*: one selector with one parameter setting on one data set, giving
  the feature ranking(s) for every requested feature count (one fit per
  setting; MCFS computes all counts from one LARS path through
  :meth:`ufsel.base.BaseSelector.fit_rankings`);
* an *evaluation*: one selected feature subset of one data set, scored by
  repeated k-means (ACC, NMI) and the 1-NN leave-one-out error
  (:func:`ufsel.evaluation.evaluate_selection`). Its key is the subset itself,
  so identical subsets (two settings, or a method and a baseline, choosing the
  same features) are evaluated once.

Workers load the data themselves (once per process) from the data set's name,
so tasks stay small.
"""

from __future__ import annotations

import math
import signal
import time
import traceback
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ._cache import Store, content_key

__all__ = ["DataRef", "FitTask", "EvalTask", "load_data", "run_fit", "run_eval", "fingerprint"]

#: Version of the cache entry layout; part of every key.
CACHE_FORMAT = 2

_DATA_CACHE: dict = {}


@dataclass(frozen=True)
class DataRef:
    """How a worker obtains a data set: name (or .mat path), preprocessing, folder."""

    label: str
    name: str
    preprocess: str = "none"
    data_dir: str | None = None


def _preprocess(X, how):
    if how == "none":
        return X
    from sklearn.preprocessing import MinMaxScaler, StandardScaler, normalize

    if how == "l2_rows":
        return normalize(X, norm="l2", axis=1)
    if sparse.issparse(X):
        raise ValueError(f"preprocess={how!r} would densify sparse data; use 'none' or 'l2_rows'.")
    scaler = MinMaxScaler() if how == "minmax" else StandardScaler()
    return scaler.fit_transform(X)


def fingerprint(X, y):
    """SHA-256 of the data and labels (the data's identity in every cache key)."""
    import hashlib

    h = hashlib.sha256()
    if sparse.issparse(X):
        X = X.tocsr()
        h.update(b"csr")
        for a in (X.data, X.indices, X.indptr):
            h.update(np.ascontiguousarray(a).tobytes())
    else:
        h.update(np.ascontiguousarray(X, dtype=np.float64).tobytes())
    h.update(repr(X.shape).encode())
    h.update(np.asarray(y).astype(str).astype("U").tobytes())
    return h.hexdigest()


def load_data(ref):
    """(X, y, fingerprint) for ``ref``, loaded once per process."""
    hit = _DATA_CACHE.get(ref)
    if hit is not None:
        return hit
    from ..datasets import load_dataset

    b = load_dataset(ref.name, data_dir=ref.data_dir)
    X = _preprocess(b.data, ref.preprocess)
    if not sparse.issparse(X):
        X = np.ascontiguousarray(X, dtype=np.float64)
    if b.target is None:
        raise ValueError(f"data set {ref.name!r} ({b.source}) has no labels, which the "
                         "benchmark's evaluation needs; select on it with `ufsel select`.")
    y = np.asarray(b.target)
    out = (X, y, fingerprint(X, y))
    _DATA_CACHE[ref] = out
    return out


@dataclass(frozen=True)
class FitTask:
    key: str
    data: DataRef
    selector: str
    params: tuple  # sorted (name, value) pairs passed to the constructor
    counts: tuple
    count_dependent: bool
    timeout: float = 0.0  # seconds; 0: no cap


@dataclass(frozen=True)
class EvalTask:
    key: str
    data: DataRef
    selected: tuple
    kmeans_runs: int
    seed: int
    nn_loo: bool
    kmeans_init: str = "random"


def fit_key(data_fp, selector, class_path, params_json, counts, count_dependent, version):
    return content_key({
        "format": CACHE_FORMAT, "kind": "fit", "data": data_fp, "selector": selector,
        "class": class_path, "params": params_json,
        "counts": list(counts) if count_dependent else None, "ufsel": version,
    })


def eval_key(data_fp, selected, kmeans_runs, seed, nn_loo, version, kmeans_init="random"):
    return content_key({
        "format": CACHE_FORMAT, "kind": "eval", "data": data_fp,
        "selected": sorted(int(j) for j in selected), "kmeans_runs": kmeans_runs,
        "kmeans_init": kmeans_init, "kmeans_max_iter": 100, "seed": seed, "nn_loo": nn_loo,
        "ufsel": version,
    })


def _error_text(exc):
    msg = f"{type(exc).__name__}: {exc}"
    return msg if len(msg) <= 600 else msg[:597] + "..."


def _unique_messages(caught, limit=5):
    msgs = []
    for w in caught:
        text = f"{w.category.__name__}: {w.message}"
        if text not in msgs:
            msgs.append(text)
    return msgs[:limit]


def _fit_entry(task, threads):
    """Fit one selector setting in this process; the cache entry (raises on failure)."""
    from threadpoolctl import threadpool_limits

    from .. import get_selector

    X, _, _ = load_data(task.data)
    cls = get_selector(task.selector)
    est = cls(**dict(task.params))
    counts = list(task.counts)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught, threadpool_limits(limits=threads):
        warnings.simplefilter("always")
        if task.count_dependent:
            rankings = est.fit_rankings(X, counts)
            orders = {str(k): np.argsort(rankings[k], kind="stable")[:k].tolist()
                      for k in counts}
            fitted = None
        else:
            # the scores do not depend on the count: fitting once is what
            # fit_rankings does, and keeps the fitted estimator (objective_)
            fitted = est.set_params(n_features_to_select=max(counts)).fit(X)
            orders = {"all": np.argsort(fitted.ranking_, kind="stable").tolist()}
    fit_time, fit_cpu = time.perf_counter() - t0, time.process_time() - c0
    objective = getattr(fitted, "objective_", None) if fitted is not None else None
    if objective is not None:
        objective = [float(v) for v in np.ravel(objective)]
    n_iter = getattr(fitted, "n_iter_", None) if fitted is not None else None
    return {
        "status": "ok", "orders": orders, "count_dependent": task.count_dependent,
        "fit_time_s": fit_time, "fit_cpu_s": fit_cpu, "objective": objective,
        "n_iter": None if n_iter is None else int(np.max(n_iter)),
        "warnings": _unique_messages(caught), "selector": task.selector,
    }


def _fit_child(task, threads, conn):
    """Body of the capped fit's process: send ("ok", entry) or ("error", text, traceback).

    The cap is on the process's CPU time (``RLIMIT_CPU``: the kernel ends the
    process with SIGXCPU), so a fit is not "timed out" because other jobs
    share the cores; with one BLAS thread the CPU time is the wall time of an
    idle machine.
    """
    import resource

    cap = max(1, math.ceil(task.timeout))
    resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 5))
    try:
        entry = _fit_entry(task, threads)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent
        conn.send(("error", _error_text(exc), traceback.format_exc(limit=6)))
    else:
        conn.send(("ok", entry))
    finally:
        conn.close()


def _fit_capped(task, threads):
    """Run :func:`_fit_entry` in a fresh process limited to ``task.timeout`` CPU seconds.

    The process comes from a fork server (started once, before any OpenMP
    or BLAS thread pool exists in it, so forking it is safe), which keeps the
    start cost at a fork rather than a new interpreter.
    """
    import multiprocessing as mp

    ctx = mp.get_context("forkserver")
    # imported once in the server (no thread pool starts at import), not in every child
    ctx.set_forkserver_preload(["ufsel.benchmark._units", "ufsel._registry"])
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_fit_child, args=(task, threads, send), daemon=False)
    t0 = time.perf_counter()
    proc.start()
    send.close()
    timed_out = {"status": "timed_out", "fit_timeout_s": float(task.timeout), "cap": "cpu",
                 "selector": task.selector, "orders": None, "objective": None,
                 "n_iter": None, "warnings": [], "count_dependent": task.count_dependent}
    try:
        # the CPU-time limit ends the fit; the wall-clock wait is a backstop for a
        # process that sleeps or waits (20 x the cap: a machine shared by many jobs)
        if recv.poll(20 * task.timeout + 60):
            try:
                msg = recv.recv()
            except EOFError:
                proc.join()
                if proc.exitcode == -signal.SIGXCPU:  # stopped after the cap's CPU time
                    return {**timed_out, "fit_time_s": time.perf_counter() - t0,
                            "fit_cpu_s": float(math.ceil(task.timeout))}
                raise RuntimeError(f"the fit's process died (exit code {proc.exitcode}), "
                                   "e.g. killed for memory") from None
            proc.join()
            if msg[0] == "error":
                raise _ChildError(msg[1], msg[2])
            return {**msg[1], "fit_timeout_s": float(task.timeout), "cap": "cpu"}
        proc.kill()
        proc.join()
        return {**timed_out, "cap": "wall", "fit_time_s": time.perf_counter() - t0}
    finally:
        recv.close()
        if proc.is_alive():  # interrupted while waiting
            proc.kill()
            proc.join()


class _ChildError(Exception):
    def __init__(self, text, tb):
        super().__init__(text)
        self.text, self.tb = text, tb


def run_fit(task, store_root, threads=None):
    """Fit one selector setting; store and return the entry (or the failure).

    ``threads`` caps the BLAS / OpenMP threads of the fit (None: no cap).
    With ``task.timeout > 0`` the fit runs in a process of its own that is
    ended after that many seconds of CPU time; the stored entry then has
    ``status = "timed_out"`` (and no orders), so a resumed run does not retry
    it unless it is given a longer cap.
    """
    try:
        entry = _fit_capped(task, threads) if task.timeout else _fit_entry(task, threads)
    except Exception as exc:  # one failing method must not stop the others
        text, tb = ((exc.text, exc.tb) if isinstance(exc, _ChildError)
                    else (_error_text(exc), traceback.format_exc(limit=6)))
        # stored too: a resumed run reports the failure instead of retrying it
        Store(store_root).put("fit", task.key, {
            "status": "failed", "error": text, "selector": task.selector, "orders": None,
            "fit_time_s": None, "objective": None, "n_iter": None, "warnings": [],
            "count_dependent": task.count_dependent})
        return {"key": task.key, "error": text, "traceback": tb}
    Store(store_root).put("fit", task.key, entry)
    return {"key": task.key, "entry": entry}


def run_eval(task, store_root):
    """Evaluate one feature subset; store and return the entry (or the failure)."""
    from threadpoolctl import threadpool_limits

    from ..evaluation import evaluate_selection

    try:
        X, y, _ = load_data(task.data)
        t0 = time.perf_counter()
        # One thread: k-means on a few selected features is too small for
        # OpenMP to pay off, and threads oversubscribe the cores that the
        # parallel jobs already use (10x slower on a loaded 2-core machine).
        with threadpool_limits(limits=1), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = evaluate_selection(X, y, np.asarray(task.selected, dtype=np.intp),
                                     n_runs=task.kmeans_runs, report="best_objective",
                                     random_state=task.seed, loo=task.nn_loo,
                                     init=task.kmeans_init)
        eval_time = time.perf_counter() - t0
    except Exception as exc:
        return {"key": task.key, "error": _error_text(exc),
                "traceback": traceback.format_exc(limit=6)}
    entry = {k: res[k] for k in ("acc_mean", "acc_std", "nmi_mean", "nmi_std",
                                 "acc_best_objective", "nmi_best_objective",
                                 "nmi_arithmetic_mean", "nmi_arithmetic_std",
                                 "nmi_arithmetic_best_objective")}
    entry["nn_error"] = res.get("nn_loo_error")
    entry["acc_runs"] = res["acc_runs"]
    entry["nmi_runs"] = res["nmi_runs"]
    entry["nmi_arithmetic_runs"] = res["nmi_arithmetic_runs"]
    entry["eval_time_s"] = eval_time
    # e.g. k-means finding fewer distinct clusters than classes on constant features
    entry["warnings"] = _unique_messages(caught)
    Store(store_root).put("eval", task.key, entry)
    return {"key": task.key, "entry": entry}
