"""ufsel beside scanpy's highly_variable_genes on planted single-cell counts.

Generates :func:`ufsel.datasets.make_planted_counts` (negative-binomial counts, K cell
types carried by ``--markers`` marker genes, ~3 % non-zero) and, in one run, selects
``--count`` genes with

- scanpy ``highly_variable_genes``: flavour ``seurat`` (on log-normalised counts),
  ``seurat_v3`` (on the counts) and scanpy's ``pearson_residuals`` flavour
  (``scanpy.experimental``), when scanpy is installed (``pip install 'ufsel[bench-counts]'``;
  its rows are skipped otherwise);
- ufsel's count scores on the counts (``pearson_residual_variance``, ``binomial_deviance``);
- ufsel selectors (MaxVariance, LaplacianScore, MCFS, SPCAFS by default) on each
  transform (``log1p``: library-size normalisation then log1p, sparse; ``pearson``:
  analytic Pearson residuals, dense).

Each (method, transform) runs in a fresh process that generates the data, applies the
transform and fits; the process's CPU and wall time of transform + fit, the load average,
its peak resident memory (``VmHWM``, also ``ru_maxrss``) and the planted markers among
the ``--count`` genes selected are recorded. Results are cached per (method, transform,
size) in ``--cache`` (JSON): a rerun resumes where it stopped. A markdown table is
printed and written beside the cache.

    PYTHONPATH=src nice python benchmarks/speed/bench_counts_vs_scanpy.py \\
        --cells 20000 --genes 5000 --markers 200 --count 200
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: _harness

import numpy as np  # noqa: E402
from _harness import measure_fit, run_job  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results" / "counts"
SCANPY = ("seurat", "seurat_v3", "pearson_residuals")
SCORES = ("residual_variance", "deviance")
METHODS = ("maxvariance", "laplacianscore", "mcfs", "spcafs")
TRANSFORMS = ("log1p", "pearson")


def _scanpy_available():
    try:
        import scanpy  # noqa: F401
    except ImportError:
        return False
    return True


def _params(method, n_clusters, graph=None):
    """The selectors' settings: their defaults, MCFS with the planted number of types;
    ``graph`` (e.g. "anchor") for the selectors that have that parameter."""
    from ufsel import get_selector

    params = {"mcfs": {"n_clusters": n_clusters, "random_state": 0},
              "laplacianscore": {"random_state": 0},
              "spcafs": {"random_state": 0}}.get(method, {})
    if graph and "graph" in get_selector(method)().get_params():
        params["graph"] = graph
    return params


def _select(job, X):
    """The ``count`` genes chosen by ``job`` on counts X (a function to time)."""
    count, kind, method = job["count"], job["kind"], job["method"]
    if kind == "scanpy":
        import anndata
        import scanpy as sc

        adata = anndata.AnnData(X)
        if method == "seurat":
            sc.pp.normalize_total(adata)
            sc.pp.log1p(adata)
            sc.pp.highly_variable_genes(adata, flavor="seurat", n_top_genes=count)
        elif method == "seurat_v3":
            sc.pp.highly_variable_genes(adata, flavor="seurat_v3", n_top_genes=count)
        else:
            sc.experimental.pp.highly_variable_genes(adata, flavor="pearson_residuals",
                                                     n_top_genes=count)
        return np.flatnonzero(adata.var["highly_variable"].to_numpy())
    from ufsel import get_selector
    from ufsel.preprocessing import (
        binomial_deviance,
        normalize_log1p,
        pearson_residual_variance,
        pearson_residuals,
    )

    if kind == "score":
        score = (pearson_residual_variance if method == "residual_variance"
                 else binomial_deviance)(X)
        return np.argsort(-score, kind="stable")[:count]
    Xt = normalize_log1p(X) if job["transform"] == "log1p" else pearson_residuals(X)
    est = get_selector(method)(n_features_to_select=count,
                               **_params(method, job["n_clusters"], job.get("graph"))).fit(Xt)
    return np.flatnonzero(est.get_support())


def worker(job):
    """Generate the data, select (timed), print ``RESULT <json>``."""
    from ufsel.datasets import make_planted_counts

    X, _, markers = make_planted_counts(job["cells"], job["genes"], job["markers"],
                                        n_clusters=job["n_clusters"],
                                        random_state=job["seed"])
    chosen, out = measure_fit(lambda: _select(job, X))
    out.update(recovered=int(np.intersect1d(chosen, markers).size), selected=int(chosen.size),
               ru_maxrss_mib=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
               data_mib=(X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20,
               density=X.nnz / (X.shape[0] * X.shape[1]))
    print("RESULT " + json.dumps(out))


def jobs(args):
    base = {"cells": args.cells, "genes": args.genes, "markers": args.markers,
            "count": args.count, "n_clusters": args.clusters, "seed": args.seed}
    out = []
    if args.scanpy:
        out += [{**base, "kind": "scanpy", "method": m, "transform": "scanpy"}
                for m in args.scanpy]
    out += [{**base, "kind": "score", "method": m, "transform": "counts"} for m in args.scores]
    graph = {"graph": args.graph} if args.graph else {}
    out += [{**base, "kind": "selector", "method": m, "transform": t, **graph}
            for t in args.transforms for m in args.methods]
    return out


def key(job):
    return "|".join(str(job[k]) for k in ("kind", "method", "transform", "cells", "genes",
                                          "markers", "count", "n_clusters", "seed")
                    if k in job) + (f"|graph={job['graph']}" if job.get("graph") else "")


def table(rows, args):
    lines = [f"Planted counts, {args.cells:,} cells x {args.genes:,} genes, {args.markers} "
             f"markers of {args.clusters} types; {args.count} genes selected.", "",
             "| method | transform | planted markers recovered | CPU s | wall s | peak RSS MiB "
             "| load average |", "|---|---|---|---|---|---|---|"]
    for job, res in rows:
        name = {"scanpy": f"scanpy {job['method']}", "score": f"ufsel {job['method']}"}.get(
            job["kind"], job["method"]) + (f" ({job['graph']} graph)" if job.get("graph") else "")
        if "error" in res:
            lines.append(f"| {name} | {job['transform']} | - | - | - | - | {res['error']} |")
            continue
        lines.append(f"| {name} | {job['transform']} | {res['recovered']} / {args.markers} | "
                     f"{res['cpu_s']:.1f} | {res['wall_s']:.1f} | {res['peak_mib']:.0f} | "
                     f"{res['load_before']:.1f} |")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cells", type=int, default=20_000)
    p.add_argument("--genes", type=int, default=5_000)
    p.add_argument("--markers", type=int, default=200)
    p.add_argument("--count", type=int, default=None, help="genes selected (default: --markers)")
    p.add_argument("--clusters", type=int, default=10, help="cell types planted")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--methods", nargs="*", default=list(METHODS))
    p.add_argument("--transforms", nargs="*", default=list(TRANSFORMS), choices=TRANSFORMS)
    p.add_argument("--scores", nargs="*", default=list(SCORES), choices=SCORES)
    p.add_argument("--scanpy", nargs="*", default=list(SCANPY), choices=SCANPY)
    p.add_argument("--graph", choices=("knn", "anchor"), default=None,
                   help="graph of LaplacianScore and MCFS (default: theirs, 'auto')")
    p.add_argument("--timeout", type=int, default=3600, help="seconds per fit")
    p.add_argument("--cache", type=Path, default=RESULTS / "bench_counts_cache.json")
    p.add_argument("--rerun", action="store_true", help="ignore the cached results")
    args = p.parse_args(argv)
    args.count = args.count or args.markers
    if args.scanpy and not _scanpy_available():
        print("scanpy is not installed (pip install 'ufsel[bench-counts]'): its rows are "
              "skipped.")
        args.scanpy = []
    cache = json.loads(args.cache.read_text()) if args.cache.exists() else {}
    rows = []
    for job in jobs(args):
        k = key(job)
        if k not in cache or args.rerun or "error" in cache[k]:
            t0 = time.perf_counter()
            res = run_job(job, timeout=args.timeout, script=Path(__file__).resolve())
            res["job_wall_s"] = time.perf_counter() - t0
            cache[k] = res
            args.cache.parent.mkdir(parents=True, exist_ok=True)
            tmp = args.cache.with_suffix(".tmp")
            tmp.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
            os.replace(tmp, args.cache)
        res = cache[k]
        shown = res.get("error") or (f"{res['recovered']} markers, CPU {res['cpu_s']:.1f} s, "
                                     f"wall {res['wall_s']:.1f} s, peak {res['peak_mib']:.0f} "
                                     f"MiB, load {res['load_before']:.1f}")
        print(f"{job['kind']:>8} {job['method']:<18} {job['transform']:<8} {shown}  "
              f"(load now {os.getloadavg()[0]:.1f})", flush=True)
        rows.append((job, res))
    text = table(rows, args)
    out = args.cache.parent / f"bench_counts_{args.cells}x{args.genes}.md"
    out.write_text(text + "\n\n`PYTHONPATH=src python benchmarks/speed/bench_counts_vs_scanpy.py "
                   f"--cells {args.cells} --genes {args.genes} --markers {args.markers} "
                   f"--count {args.count}{' --graph ' + args.graph if args.graph else ''}`\n")
    print("\n" + text + f"\n\n(written to {out})")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1].startswith("{"):
        worker(json.loads(sys.argv[1]))
    else:
        main()
