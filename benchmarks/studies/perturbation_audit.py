"""How far each selector's result moves under a 1e-12 relative perturbation of X.

For each data set and selector (defaults, ``n_features_to_select=50``, ``random_state=0``
where the selector takes one), fits X and ``X * (1 + 1e-12 u)`` (u uniform in [-1, 1],
seeded) and prints the overlap of the two top-50 sets and the largest score difference
relative to the largest score. A well-posed method on data without exact ties moves by
about 1e-11; a large change means the result follows round-off:

- exact ties in the data (integer-valued features: equal k-NN distances, duplicate
  columns) are broken by the perturbation; that is a documented tie, not a defect;
- otherwise the method makes a choice its inputs do not determine (a repeated
  eigenvalue cut by the number of eigenvectors it takes), which is a defect.

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data python benchmarks/studies/perturbation_audit.py \\
        --datasets coil20 jaffe orl --skip ufsa dgufs sogfs

With ``--fresh-process`` the second fit is of the same, unperturbed X in a fresh Python
process (same environment and BLAS settings) instead: a result that differs then follows
the process's round-off (for example the memory alignment that the summation order of
some BLAS kernels depends on), which no perturbation within one process shows. With
``--env NAME=VALUE ...`` as well, the fresh process runs with those environment variables
set (e.g. ``OMP_NUM_THREADS=2`` or ``OPENBLAS_CORETYPE=Sandybridge``: another thread count or
BLAS kernel); a repeatable result may still differ there in the last bits, but should keep
its selection.

Without ``UFSEL_DATA`` it prints one line and exits 0.
"""

from __future__ import annotations

import argparse
import inspect
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np


def _data(ds):
    from ufsel.datasets import load_dataset

    X = np.asarray(load_dataset(ds).data, dtype=np.float64)
    return X, bool(np.all(X == np.round(X)))


def _fit(key, m, X, n_clusters=None):
    """Scores and top-m support of one registered selector at its defaults on X (with
    ``n_clusters`` where given and the selector has it)."""
    from ufsel import SELECTORS

    cls = SELECTORS[key]
    kw = {"n_features_to_select": m}
    params = inspect.signature(cls.__init__).parameters
    if "random_state" in params:
        kw["random_state"] = 0
    if n_clusters is not None and "n_clusters" in params:
        kw["n_clusters"] = n_clusters
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(**kw).fit(X)
    return np.asarray(est.scores_, float), set(np.flatnonzero(est.get_support()))


def _fit_in_fresh_process(ds, key, m, n_clusters, env=()):
    environ = dict(os.environ, **dict(item.split("=", 1) for item in env))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fit.npz")
        extra = [] if n_clusters is None else ["--n-clusters", str(n_clusters)]
        subprocess.run([sys.executable, os.path.abspath(__file__), "--child", ds, key, out,
                        "--n-features", str(m), *extra], check=True, env=environ)
        saved = np.load(out)
        return saved["scores"], set(saved["support"].tolist())


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", nargs="+", default=["coil20", "jaffe", "orl"])
    p.add_argument("--methods", nargs="*", default=None, help="default: every registered selector")
    p.add_argument("--skip", nargs="*", default=[])
    p.add_argument("--n-features", type=int, default=50)
    p.add_argument("--n-clusters", type=int, default=None,
                   help="n_clusters for the selectors that take it (default: their own)")
    p.add_argument("--fresh-process", action="store_true",
                   help="compare with the same fit in a fresh process, not with a perturbed X")
    p.add_argument("--env", nargs="*", default=[], metavar="NAME=VALUE",
                   help="with --fresh-process: environment variables of the fresh process")
    p.add_argument("--child", nargs=3, metavar=("DATASET", "METHOD", "OUT"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        print("UFSEL_DATA is not set: no shared data sets to audit.")
        return 0
    m = args.n_features
    if args.child:
        ds, key, out = args.child
        scores, support = _fit(key, m, _data(ds)[0], args.n_clusters)
        np.savez(out, scores=scores, support=np.array(sorted(support)))
        return 0
    from ufsel import SELECTORS

    names = args.methods or sorted(SELECTORS)
    if any("=" not in item for item in args.env):
        p.error("--env takes NAME=VALUE items")
    other = "perturbed X"
    if args.fresh_process:
        other = "a fresh process" + (f" ({' '.join(args.env)})" if args.env else "")
    print(f"| data set | method | top-{m} overlap with {other} | max score change / max score "
          "| fit s |")
    print("|---|---|---|---|---|")
    for ds in args.datasets:
        X, integer = _data(ds)
        Xp = X * (1.0 + 1e-12 * np.random.RandomState(5).uniform(-1, 1, X.shape))
        for key in names:
            if key in args.skip:
                continue
            t = time.perf_counter()
            try:
                sa, ta = _fit(key, m, X, args.n_clusters)
                sb, tb = (_fit_in_fresh_process(ds, key, m, args.n_clusters, args.env)
                          if args.fresh_process else _fit(key, m, Xp, args.n_clusters))
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"| {ds} | {key} | error: {type(exc).__name__} | | |", flush=True)
                continue
            rel = float(np.abs(sa - sb).max() / max(float(np.abs(sa).max()), 1e-300))
            tag = " (integer data)" if integer else ""
            print(f"| {ds}{tag} | {key} | {len(ta & tb)}/{m} | {rel:.1e} | "
                  f"{time.perf_counter() - t:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
