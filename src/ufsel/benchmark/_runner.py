"""``ufsel.benchmark.run``: plan, execute (cached, parallel), tabulate, summarise."""

from __future__ import annotations

import datetime
import json
import os
import sys
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from ..utils import get_selector_tags
from ._cache import Store, atomic_write_text, canonical_json, content_key, to_jsonable
from ._experiment import load_experiment, resolve_params
from ._tables import build_tables, write_tables
from ._units import DataRef, EvalTask, FitTask, eval_key, fit_key, load_data, run_eval, run_fit

__all__ = ["run", "RunResult"]


@dataclass
class RunResult:
    """What :func:`run` returns.

    Parameters
    ----------
    out_dir : Path
        The results folder.
    runs : list
        One record per fit (cached or computed).
    results : list of dict
        The evaluation rows, as in ``results.csv``.
    summary : dict
        Counts of computed, cached and failed fits and evaluations, the failures
        and the wall time (see :func:`format_summary`).
    files : dict, default={}
        The files written, by kind.
    """

    out_dir: Path
    runs: list
    results: list
    summary: dict
    files: dict = field(default_factory=dict)

    def __repr__(self):
        s = self.summary
        return (f"RunResult(out_dir={str(self.out_dir)!r}, rows={len(self.results)}, "
                f"fits computed/cached/failed={s['fits_computed']}/{s['fits_cached']}/"
                f"{s['fits_failed']}, evaluations computed/cached/failed={s['evals_computed']}/"
                f"{s['evals_cached']}/{s['evals_failed']})")


@dataclass
class _Setting:
    """One (data set, method, parameter setting) of the plan."""

    dataset: str
    method: str
    selector: str
    params: dict          # full constructor parameters (without n_features_to_select)
    params_json: dict
    is_default: bool
    in_grid: bool
    counts: tuple
    count_dependent: bool
    fit_seed: object
    key: str = ""
    entry: dict | None = None
    cached: bool = False
    protocol: str = "n_classes"
    n_clusters: int | None = None  # the cluster count the protocol gave (None: not used)
    status: str = "ok"             # "ok", "timed out", "failed", "not run"
    reason: str = ""


class _Progress:
    """A tqdm bar when tqdm is installed and wanted, else silence."""

    def __init__(self, total, desc, enabled):
        self.bar = None
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # pragma: no cover - tqdm is in the bench extra
                tqdm = None
            if tqdm is not None:
                self.bar = tqdm(total=total, desc=desc, unit="unit", dynamic_ncols=True,
                                file=sys.stderr, smoothing=0.1)

    def set_total(self, total):
        if self.bar is not None:
            self.bar.total = total
            self.bar.refresh()

    def update(self, text=""):
        if self.bar is not None:
            if text:
                self.bar.set_postfix_str(text[:40], refresh=False)
            self.bar.update(1)

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _parallel_map(func, tasks, store_root, n_jobs, progress, describe):
    """Run ``func(task, store_root)`` for every task, yielding results as they finish."""
    if not tasks:
        return
    if n_jobs == 1:
        for t in tasks:
            res = func(t, store_root)
            progress.update(describe(t))
            yield res
        return
    from joblib import Parallel, delayed

    try:
        par = Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1)
    except ValueError:  # joblib < 1.4: results in submission order
        par = Parallel(n_jobs=n_jobs, return_as="generator", batch_size=1)
    by_key = {t.key: t for t in tasks}
    for res in par(delayed(func)(t, store_root) for t in tasks):
        progress.update(describe(by_key[res["key"]]))
        yield res


def _class_path(cls):
    """The cache key's name of a selector class: ``ufsel.<ClassName>`` for the public
    selectors, so that moving a selector's module keeps its cached fits."""
    import ufsel

    if getattr(ufsel, cls.__qualname__, None) is cls:
        return f"ufsel.{cls.__qualname__}"
    return f"{cls.__module__}.{cls.__qualname__}"


def _plan_settings(exp, ds_label, n_classes, counts, fp, version, failures, protocol, K):
    """Resolve every method's parameter settings on one data set under one protocol.

    ``K`` is the cluster count of the protocol: the number of classes, or the
    label-free estimate; it replaces the ``"n_classes"`` tokens and is the
    automatic ``n_clusters``.
    """
    from .. import SELECTORS

    out = []
    for m in exp.methods:
        cls = SELECTORS.get(m.selector)
        if cls is None:
            failures.append({
                "dataset": ds_label, "method": m.label, "params": "", "stage": "plan",
                "reason": f"method {m.selector!r} is not registered in ufsel (registered: "
                          f"{', '.join(sorted(SELECTORS))}); skipped.",
            })
            continue
        count_dependent = get_selector_tags(cls()).scores_depend_on_count
        seen = {}
        raw = m.settings()
        for i, setting in enumerate(raw):
            params = resolve_params(setting, K)
            uses_k = any(isinstance(v, str) and resolve_params({"v": v}, K)["v"] != v
                         for v in setting.values())
            try:
                if "n_clusters" not in params and "n_clusters" in cls().get_params():
                    params["n_clusters"] = K  # the protocol's cluster count
                    uses_k = True
                est = cls(**params)
                full = est.get_params(deep=False)
            except Exception as exc:  # unknown parameter names, bad values
                failures.append({"dataset": ds_label, "method": m.label,
                                 "params": canonical_json(params), "stage": "plan",
                                 "reason": f"{type(exc).__name__}: {exc}"})
                continue
            full.pop("n_features_to_select", None)
            if "random_state" in full and full["random_state"] is None:
                full["random_state"] = exp.seed
            pj = to_jsonable(full)
            sig = canonical_json(pj)
            is_default, in_grid = i == 0, (i > 0 or not m.grid)
            if sig in seen:
                s = seen[sig]
                s.is_default = s.is_default or is_default
                s.in_grid = s.in_grid or in_grid
                continue
            key = fit_key(fp, m.selector, _class_path(cls), pj, counts, count_dependent, version)
            s = _Setting(dataset=ds_label, method=m.label, selector=m.selector, params=full,
                         params_json=pj, is_default=is_default, in_grid=in_grid, counts=counts,
                         count_dependent=count_dependent, fit_seed=full.get("random_state"),
                         key=key, protocol=protocol, n_clusters=K if uses_k else None)
            seen[sig] = s
            out.append(s)
    return out


def label_free_n_clusters(X, fp, store, seed, version, compute=True):
    """The label-free cluster count of one data set (cached in ``store``).

    :func:`ufsel.model_selection.estimate_n_clusters` on X alone; raises
    ImportError when this build of ufsel does not have it.
    """
    from ..model_selection import estimate_n_clusters

    key = content_key({"kind": "n_clusters", "data": fp, "seed": seed, "ufsel": version,
                       "function": "estimate_n_clusters"})
    hit = store.get("n_clusters", key)
    if hit is not None:
        return int(hit["n_clusters"])
    if not compute:
        raise LookupError("not in the cache (the run did not reach this data set)")
    t0 = time.perf_counter()
    K = int(estimate_n_clusters(X, random_state=seed))
    store.put("n_clusters", key, {"n_clusters": K, "time_s": time.perf_counter() - t0})
    return K


def random_baseline_orders(exp, n_features):
    """``(seed, permutation of the columns)`` for each of the experiment's random-subset
    baselines; the subset of size k is the permutation's first k columns (nested)."""
    return [(rs, np.random.RandomState(rs).permutation(n_features))
            for rs in (exp.seed + 1000 + i for i in range(exp.random_baseline_seeds))]


def _order_for(entry, k):
    orders = entry["orders"]
    if "all" in orders:
        return orders["all"][:k]
    return orders[str(k)][:k]


def run(experiment, out_dir, *, n_jobs=1, threads_per_job=1, data_dir=None, progress=True,
        plots=True, report=True, verbose=True, compute=True, refit=()):
    """Run (or resume) an experiment; write the tables, figures and report to ``out_dir``.

    Every finished fit and evaluation is stored in ``out_dir/cache`` as soon as
    it is done (atomically), so a run that is interrupted at any moment and
    started again recomputes only what is missing. The tables are rebuilt from
    the cache at the end of every run, and written atomically.

    Parameters
    ----------
    experiment : path to a TOML experiment file, dict, or :class:`Experiment`
    out_dir : path-like
        Results folder: ``results.csv`` (tidy: one row per data set, method,
        tuning mode, feature count and metric), ``runs.csv`` (every parameter
        setting), ``comparison.csv`` (paper vs ufsel), ``runtime.csv``,
        ``traces.json``, ``summary.json``, ``figures/``, ``report.html``.
    n_jobs : int, default=1
        Parallel worker processes (joblib); -1 uses every core.
    threads_per_job : int or None, default=1
        BLAS / OpenMP threads of each fit (evaluations always use one). The
        default makes the results independent of ``n_jobs``: some problems
        are ill-posed enough for the thread count to change a ranking (MCFS
        on a disconnected k-NN graph, whose null space is degenerate). None
        gives each job ``cpu_count // n_jobs`` threads.
    data_dir : path-like, optional
        Folder of the ``.mat`` data sets (default: ``$UFSEL_DATA``).
    progress : bool, default=True
        Show a progress bar with an ETA (tqdm).
    plots, report : bool, default=True
        Draw the figures (needs matplotlib) and write ``report.html``.
    verbose : bool, default=True
        Print the summary at the end.
    compute : bool, default=True
        False: compute nothing, build the tables and the report from what the
        cache holds (fits not yet run are reported as "not run"). Used to
        assemble one report from runs made data set by data set.
    refit : iterable of str, default=()
        Method labels whose cached fits are ignored and recomputed (the new fit
        replaces the cache entry); for a method whose code changed since the
        cache was written (the cache key holds the data, the parameters and
        ufsel's version, not the code). Evaluations stay cached: they are keyed
        by the selected features, so a new selection is evaluated and an
        unchanged one is not. An interrupted refit run resumes without
        ``refit`` (given again, it recomputes the finished fits too).

    Returns
    -------
    RunResult
    """
    from .. import __version__

    t_start = time.perf_counter()
    exp = load_experiment(experiment)
    refit = set(refit or ())
    unknown = sorted(refit - {m.label for m in exp.methods})
    if unknown:
        raise ValueError(f"refit {unknown} not among the experiment's methods "
                         f"{[m.label for m in exp.methods]}.")
    if not isinstance(n_jobs, int) or n_jobs == 0:
        raise ValueError(f"n_jobs must be a non-zero integer, got {n_jobs!r}.")
    n_workers = n_jobs if n_jobs > 0 else max(1, (os.cpu_count() or 1) + 1 + n_jobs)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    store_root = str(out / "cache")
    store = Store(store_root)
    store.remove_stale_temporaries()
    data_dir = None if data_dir is None else str(data_dir)
    atomic_write_text(out / "experiment.json", json.dumps(exp.to_dict(), indent=2))

    failures = []
    datasets = {}  # label -> info
    settings = []
    for ds in exp.datasets:
        ref = DataRef(label=ds.label, name=ds.name, preprocess=ds.preprocess, data_dir=data_dir)
        try:
            X, y, fp = load_data(ref)
        except Exception as exc:
            failures.append({"dataset": ds.label, "method": "*", "params": "", "stage": "data",
                             "reason": f"{type(exc).__name__}: {exc}"})
            continue
        n, d = X.shape
        n_classes = int(np.unique(y).size)
        if n_classes < 2:
            # every clustering agrees with one class: ACC = NMI = 100 % for any selection
            failures.append({"dataset": ds.label, "method": "*", "params": "", "stage": "data",
                             "reason": f"the labels hold a single class ({n_classes}); ACC and "
                                       "NMI against them are 100 % for every selection, so "
                                       "the data set is not evaluated. Give labels with at "
                                       "least two classes."})
            continue
        grids = exp.counts_for(ds, d)
        wanted = sorted({k for g in (ds.n_features, exp.n_features) if g for k in g}) \
            if not exp.grids or ds.n_features else []
        counts = tuple(sorted({k for g in grids.values() for k in g}))
        dropped = [k for k in wanted if k > d]
        info = {"ref": ref, "fp": fp, "n_samples": n, "n_features": d,
                "n_classes": n_classes, "counts": counts, "dropped": dropped,
                "name": ds.name, "preprocess": ds.preprocess,
                "grids": {g: list(c) for g, c in grids.items()}, "n_clusters": {}}
        datasets[ds.label] = info
        if not counts:
            failures.append({"dataset": ds.label, "method": "*", "params": "", "stage": "plan",
                             "reason": f"every requested feature count exceeds d={d}."})
            continue
        for protocol in exp.protocols:
            if protocol == "n_classes":
                K = n_classes
            else:
                try:
                    K = label_free_n_clusters(X, fp, store, exp.seed, __version__,
                                              compute=compute)
                except Exception as exc:  # ImportError included: reported, not fatal
                    failures.append({"dataset": ds.label, "method": "*", "params": "",
                                     "stage": f"plan ({protocol})",
                                     "reason": f"no label-free cluster count: "
                                               f"{type(exc).__name__}: {exc}"})
                    continue
            info["n_clusters"][protocol] = K
            settings += _plan_settings(exp, ds.label, n_classes, counts, fp, __version__,
                                       failures, protocol, K)

    # ---------------------------------------------------------- phase 1: fits
    fit_tasks, queued = [], set()
    for s in settings:
        entry = store.get("fit", s.key) if not (compute and s.method in refit) else None
        if entry is not None and entry.get("status") == "timed_out" and (
                not exp.fit_timeout or entry["fit_timeout_s"] < exp.fit_timeout
                or entry.get("cap") != "cpu"):
            entry = None  # a longer cap now: try again
        if entry is not None:
            s.entry, s.cached = entry, True
        elif not compute:
            s.status, s.reason = "not run", "not in the cache (the run did not reach it)"
        elif s.key not in queued:
            queued.add(s.key)
            fit_tasks.append(FitTask(key=s.key, data=datasets[s.dataset]["ref"],
                                     selector=s.selector,
                                     params=tuple(sorted(s.params.items())),
                                     counts=s.counts, count_dependent=s.count_dependent,
                                     timeout=float(exp.fit_timeout)))
    n_eval_guess = sum(len(s.counts) for s in settings) + sum(
        len(i["counts"]) * exp.random_baseline_seeds + 1 for i in datasets.values())
    bar = _Progress(len(fit_tasks) + n_eval_guess, exp.name, progress)
    by_key = {}
    for s in settings:
        by_key.setdefault(s.key, []).append(s)
    fit_failed = {}
    try:
        fit_threads = (max(1, (os.cpu_count() or 1) // n_workers) if threads_per_job is None
                       else int(threads_per_job))
        for res in _parallel_map(partial(run_fit, threads=fit_threads), fit_tasks, store_root,
                                 n_jobs, bar,
                                 lambda t: f"fit {t.data.label}/{t.selector}"):
            if "error" in res:
                fit_failed[res["key"]] = res["error"]
            for s in by_key[res["key"]]:
                s.entry = res.get("entry")
        for s in settings:
            if s.key in fit_failed:
                s.status, s.reason = "failed", fit_failed[s.key]
                failures.append({"dataset": s.dataset, "method": s.method,
                                 "params": canonical_json(s.params_json), "stage": "fit",
                                 "reason": fit_failed[s.key]})
            elif s.entry is not None and s.entry.get("status") == "failed":
                s.status, s.reason = "failed", s.entry["error"]
                failures.append({"dataset": s.dataset, "method": s.method,
                                 "params": canonical_json(s.params_json), "stage": "fit",
                                 "reason": s.reason})
            elif s.entry is not None and s.entry.get("status") == "timed_out":
                s.status = "timed out"
                s.reason = (f"fit longer than the cap of {s.entry['fit_timeout_s']:g} s of CPU "
                            "time")
                failures.append({"dataset": s.dataset, "method": s.method,
                                 "params": canonical_json(s.params_json), "stage": "fit",
                                 "reason": s.reason})

        # ----------------------------------------------------- phase 2: evaluations
        requests = []  # (kind, dataset, owner, k, eval key)
        eval_tasks = {}
        cached_evals = set()

        def request(ds_label, selected, owner, k):
            info = datasets[ds_label]
            key = eval_key(info["fp"], selected, exp.kmeans_runs, exp.seed, exp.nn_loo,
                           __version__, exp.kmeans_init)
            requests.append((ds_label, owner, k, key))
            if key not in eval_tasks and compute and not store.has("eval", key):
                eval_tasks[key] = EvalTask(key=key, data=info["ref"],
                                           selected=tuple(sorted(int(j) for j in selected)),
                                           kmeans_runs=exp.kmeans_runs, seed=exp.seed,
                                           nn_loo=exp.nn_loo, kmeans_init=exp.kmeans_init)
            elif key not in eval_tasks and store.has("eval", key):
                cached_evals.add(key)

        for s in settings:
            if s.entry is None or s.status != "ok":
                continue
            for k in s.counts:
                request(s.dataset, _order_for(s.entry, k), s, k)
        for label, info in datasets.items():
            d = info["n_features"]
            for rs, perm in random_baseline_orders(exp, d):
                for k in info["counts"]:
                    request(label, perm[:k], ("random", rs), k)
            request(label, np.arange(d), ("all_features", None), d)

        bar.set_total(len(fit_tasks) + len(eval_tasks))
        eval_failed = {}
        for res in _parallel_map(run_eval, list(eval_tasks.values()), store_root, n_jobs, bar,
                                 lambda t: f"eval {t.data.label} k={len(t.selected)}"):
            if "error" in res:
                eval_failed[res["key"]] = res["error"]
    finally:
        bar.close()

    # --------------------------------------------------------- phase 3: tables
    evals = {}
    for *_, key in requests:
        if key in evals:
            continue
        e = store.get("eval", key)
        if e is not None:
            evals[key] = e
    for key, err in eval_failed.items():
        for ds_label, owner, k, rkey in requests:
            if rkey == key:
                name = owner.method if isinstance(owner, _Setting) else owner[0]
                failures.append({"dataset": ds_label, "method": name, "params": "",
                                 "stage": f"evaluation (k={k})", "reason": err})
    runs, results, extras = build_tables(exp, datasets, settings, requests, evals, __version__)
    n_fit_cached = sum(1 for key in {s.key for s in settings if s.cached})
    summary = {
        "experiment": exp.name, "ufsel_version": __version__, "n_jobs": n_jobs,
        "threads_per_job": threads_per_job,
        "datasets": {k: {kk: v for kk, v in i.items() if kk not in ("ref", "fp")} | {
            "fingerprint": i["fp"][:16]} for k, i in datasets.items()},
        "fits_planned": len({s.key for s in settings}),
        "skipped": sum(1 for f in failures if f["stage"] in ("plan", "data")),
        "fits_computed": len(fit_tasks) - len(fit_failed), "fits_cached": n_fit_cached,
        "fits_failed": len({s.key for s in settings if s.status == "failed"}),
        "fits_timed_out": len({s.key for s in settings if s.status == "timed out"}),
        "fit_timeout_s": exp.fit_timeout,
        "evals_total": len({r[3] for r in requests}), "evals_computed": len(eval_tasks) - len(
            eval_failed), "evals_cached": len(cached_evals), "evals_failed": len(eval_failed),
        "failures": failures, "wall_time_s": None, "blas": blas_info(),
    }
    files = write_tables(out, runs, results, extras)
    summary["wall_time_s"] = time.perf_counter() - t_start
    summary["history"] = _history(out / "summary.json") + [{
        "finished_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "wall_time_s": summary["wall_time_s"], "n_jobs": n_jobs, "blas": summary["blas"],
        **{k: summary[k] for k in ("fits_computed", "fits_cached", "fits_failed",
                                   "evals_computed", "evals_cached", "evals_failed")}}]
    atomic_write_text(out / "summary.json", json.dumps(to_jsonable(summary), indent=2))
    files["summary"] = out / "summary.json"

    if plots:
        try:
            from .plot import draw_all
        except ImportError as exc:
            print(f"ufsel bench: figures skipped ({exc}).", file=sys.stderr)
        else:
            files["figures"] = draw_all(out)
    if report:
        from ._report import write_report

        files["report"] = write_report(out, redraw=False)
    result = RunResult(out_dir=out, runs=runs, results=results, summary=summary, files=files)
    if verbose:
        print(format_summary(summary))
    return result


def blas_info():
    """The BLAS libraries of this process (its workers inherit the environment that
    chooses them): API, version and, for OpenBLAS, the CPU kernel in use.

    Recorded with every run because the evaluation's k-means computes distances through
    the BLAS: a run under another kernel (``OPENBLAS_CORETYPE``) can send an occasional
    k-means run to another local optimum (benchmarks/results/leaderboard/README.md).
    """
    from threadpoolctl import threadpool_info

    return [{k: info.get(k) for k in ("internal_api", "version", "architecture")}
            for info in threadpool_info() if info.get("user_api") == "blas"]


def _history(path):
    """The run history kept in a previous summary.json (empty when absent)."""
    try:
        prev = json.loads(Path(path).read_text())
        mtime = Path(path).stat().st_mtime
    except (OSError, ValueError):
        return []
    if "history" in prev:
        return list(prev["history"])
    if prev.get("wall_time_s") is None:
        return []
    # a summary written before the history was kept: it records one run
    return [{"finished_utc": datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc)
             .isoformat(timespec="seconds"), "wall_time_s": prev["wall_time_s"],
             "n_jobs": prev.get("n_jobs"),
             **{k: prev.get(k, 0) for k in ("fits_computed", "fits_cached", "fits_failed",
                                             "evals_computed", "evals_cached", "evals_failed")}}]


def format_summary(summary):
    """The end-of-run summary as text.

    Parameters
    ----------
    summary : dict
        ``RunResult.summary`` (or ``summary.json``).
    """
    s = summary
    lines = [
        f"ufsel bench {s['experiment']} (ufsel {s['ufsel_version']}, n_jobs={s['n_jobs']}): "
        f"{s['wall_time_s']:.1f} s" if s.get("wall_time_s") is not None else
        f"ufsel bench {s['experiment']}",
        f"  fits:        {s['fits_computed']} ran, {s['fits_cached']} cached, "
        f"{s['fits_failed']} failed",
        f"  evaluations: {s['evals_computed']} ran, {s['evals_cached']} cached, "
        f"{s['evals_failed']} failed",
    ]
    fails = s["failures"]
    if fails:
        lines.append(f"  failed or skipped ({len(fails)}):")
        grouped = {}
        for f in fails:
            grouped.setdefault((f["method"], f["stage"], f["reason"]), []).append(f["dataset"])
        for (method, stage, reason), dsets in grouped.items():
            where = ", ".join(sorted(set(dsets)))
            lines.append(f"    - {method} [{stage}] on {where}: {reason}")
    else:
        lines.append("  nothing failed.")
    return "\n".join(lines)
