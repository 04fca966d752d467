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

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data python benchmarks/perturbation_audit.py \\
        --datasets coil20 jaffe orl --skip ufsa dgufs sogfs

Without ``UFSEL_DATA`` it prints one line and exits 0.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
import time
import warnings

import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", nargs="+", default=["coil20", "jaffe", "orl"])
    p.add_argument("--methods", nargs="*", default=None, help="default: every registered selector")
    p.add_argument("--skip", nargs="*", default=[])
    p.add_argument("--n-features", type=int, default=50)
    args = p.parse_args(argv)
    if not os.environ.get("UFSEL_DATA"):
        print("UFSEL_DATA is not set: no shared data sets to audit.")
        return 0
    from ufsel._registry import SELECTORS
    from ufsel.datasets import load_dataset

    names = args.methods or sorted(SELECTORS)
    m = args.n_features
    print(f"| data set | method | top-{m} overlap | max score change / max score | fit s |")
    print("|---|---|---|---|---|")
    for ds in args.datasets:
        X = np.asarray(load_dataset(ds).data, dtype=np.float64)
        Xp = X * (1.0 + 1e-12 * np.random.RandomState(5).uniform(-1, 1, X.shape))
        integer = bool(np.all(X == np.round(X)))
        for key in names:
            if key in args.skip:
                continue
            cls = SELECTORS[key]
            kw = {"n_features_to_select": m}
            if "random_state" in inspect.signature(cls.__init__).parameters:
                kw["random_state"] = 0
            t = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    a = cls(**kw).fit(X)
                    b = cls(**kw).fit(Xp)
            except Exception as exc:  # noqa: BLE001 - report and go on
                print(f"| {ds} | {key} | error: {type(exc).__name__} | | |", flush=True)
                continue
            sa, sb = np.asarray(a.scores_, float), np.asarray(b.scores_, float)
            overlap = len(set(np.flatnonzero(a.get_support()))
                          & set(np.flatnonzero(b.get_support())))
            rel = float(np.abs(sa - sb).max() / max(float(np.abs(sa).max()), 1e-300))
            tag = " (integer data)" if integer else ""
            print(f"| {ds}{tag} | {key} | {overlap}/{m} | {rel:.1e} | "
                  f"{time.perf_counter() - t:.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
