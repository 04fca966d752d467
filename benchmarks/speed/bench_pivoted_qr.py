"""PivotedQR against LAPACK's QR with column pivoting (scipy.linalg.qr, xGEQP3).

    OMP_NUM_THREADS=1 UFSEL_DATA=/work/shared/data PYTHONPATH=src \
        python benchmarks/speed/bench_pivoted_qr.py [--datasets jaffe coil20 mnist10k nci9 pcmac]

For each data set: the time of ``PivotedQR().fit(X)`` (every feature ranked: rounds
restarted until rank runs out, ties decided by content), the time of one
``scipy.linalg.qr(X~, mode="r", pivoting=True)`` on the centred data (the first round
only: LAPACK's pivot order, ties to the lower column index), and how many of LAPACK's
first ``min(n - 1, d)`` pivots PivotedQR puts in the same place (they differ only
where residual norms tie to 9 digits, or where LAPACK's downdated norms and ours
round differently at a near-tie). Both in one process, one BLAS thread unless the
environment says otherwise. Data sets missing from ``UFSEL_DATA`` are skipped.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from scipy import linalg, sparse

from ufsel import PivotedQR
from ufsel.datasets import load_dataset


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+",
                    default=["jaffe", "coil20", "isolet", "mnist10k", "nci9", "pcmac"])
    args = ap.parse_args(argv)
    data_dir = os.environ.get("UFSEL_DATA")
    print(f"{'data set':12s} {'n':>6s} {'d':>6s} {'PivotedQR s':>12s} {'rounds':>7s} "
          f"{'xGEQP3 s':>9s} {'ratio':>6s} {'same pivots':>14s}")
    for name in args.datasets:
        try:
            X = load_dataset(name, data_dir=data_dir).data
        except (ValueError, OSError) as exc:
            print(f"{name:12s} skipped: {exc}")
            continue
        n, d = X.shape
        t0 = time.perf_counter()
        sel = PivotedQR().fit(X)
        t_ours = time.perf_counter() - t0
        Xd = X.toarray() if sparse.issparse(X) else np.asarray(X, dtype=np.float64)
        t0 = time.perf_counter()
        Xc = Xd - Xd.mean(axis=0)
        _, piv = linalg.qr(Xc, mode="r", pivoting=True, overwrite_a=True, check_finite=False)
        t_lapack = time.perf_counter() - t0
        r = int(np.sum(sel.rounds_ == 0))
        same = int(np.sum(np.argsort(sel.ranking_)[:r] == piv[:r]))
        print(f"{name:12s} {n:6d} {d:6d} {t_ours:12.2f} {int(sel.rounds_.max()) + 1:7d} "
              f"{t_lapack:9.2f} {t_ours / t_lapack:6.1f} {same:>6d} of {r:<6d}")


if __name__ == "__main__":
    main()
