"""DGUFS: how long the subset stays put before it changes again (evidence for n_iter_no_change).

Runs DGUFS with ``n_iter_no_change=None`` for ``--max-iter`` iterations, records the subset
of every Y-step, and prints, for each patience p, the iteration at which a fit with
``n_iter_no_change=p`` would stop and whether its subset equals the subset after all
``--max-iter`` iterations; also the longest run of an unchanged subset that was followed by
a change.

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data python benchmarks/studies/dgufs_patience.py \\
        --dataset digits --m 4 8 16 24 32
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np


def subset_trace(X, m, max_iter):
    from ufsel import DGUFS
    from ufsel.selectors.adaptive_graph import (  # private: needs public API
        _dgufs as dg,  # private: needs public API (a per-iteration subset record)
    )

    keeps = []
    orig = dg._y_step

    def spy(*args, **kwargs):
        scores, keep = orig(*args, **kwargs)
        keeps.append(keep.copy())
        return scores, keep

    dg._y_step = spy
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = time.perf_counter()
            sel = DGUFS(m, n_iter_no_change=None, max_iter=max_iter).fit(X)
            elapsed = time.perf_counter() - t
    finally:
        dg._y_step = orig
    return keeps[: sel.n_iter_], elapsed


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--dataset", default="digits")
    p.add_argument("--m", type=int, nargs="+", default=[4, 8, 16, 24, 32])
    p.add_argument("--max-iter", type=int, default=80)
    p.add_argument("--patience", type=int, nargs="+", default=[3, 5, 8, 10, 20])
    args = p.parse_args(argv)
    if args.dataset == "digits":
        from sklearn.datasets import load_digits

        X = load_digits().data
    else:
        from ufsel.datasets import load_dataset

        X = load_dataset(args.dataset).data
    print(f"{args.dataset} {X.shape}, max_iter={args.max_iter}, load {os.getloadavg()[0]:.1f}")
    for m in args.m:
        keeps, elapsed = subset_trace(X, m, args.max_iter)
        same = [False] + [np.array_equal(a, b) for a, b in zip(keeps[1:], keeps[:-1])]
        runs, run, changes = [], 0, []
        for t, s in enumerate(same):
            if s:
                run += 1
            else:
                if t:
                    changes.append(t + 1)
                runs.append(run)
                run = 0
        longest_before_change = max(runs[1:], default=0) if len(runs) > 1 else 0
        cells = []
        for pat in args.patience:
            n_same, stop = 0, None
            for t, s in enumerate(same):
                n_same = n_same + 1 if s else 0
                if n_same >= pat:
                    stop = t
                    break
            if stop is None:
                cells.append(f"p={pat}: no stop")
            else:
                ok = np.array_equal(keeps[stop], keeps[-1])
                cells.append(f"p={pat}: stop {stop + 1} {'same' if ok else 'DIFFERENT'}")
        print(f"m={m}: {len(keeps)} it in {elapsed:.1f} s; subset changes at iterations "
              f"{changes}; longest unchanged run followed by a change: {longest_before_change}; "
              + "; ".join(cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
