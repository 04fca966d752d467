"""MCFS on the anchor graph of the planted benchmark: which eigenvector lets noise in.

For each landmark count, fits the anchor graph of ``make_planted(n, 100, 10)`` (float32,
as ``benchmarks/speed/bench_at_scale.py million`` generates it), its K = 10 smallest
non-trivial eigenvectors (LSC), one LARS path per eigenvector, and prints the planted
features in the top 10 with each eigenvector's vote weighing one (Eq. 5 of the paper)
and weighted by ``1 - lambda_k`` (what MCFS does on the anchor graph), the smallest
planted and the largest noise score, the eigenvalues, and the feature each
eigenvector's LARS path puts first::

    PYTHONPATH=src OMP_NUM_THREADS=1 python benchmarks/studies/mcfs_anchor_planted.py \
        --n-samples 100000 --anchors 250 500 1000 2000

The findings are in ``mcfs_anchor_planted.md`` beside this script.
"""

from __future__ import annotations

import argparse

import numpy as np
from sklearn.utils import check_random_state

from ufsel.datasets import make_planted
from ufsel.graph import anchor_graph
from ufsel.selectors.sparse_regression._mcfs import mcfs_scores  # private: needs public API


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=100_000)
    ap.add_argument("--anchors", type=int, nargs="+", default=[1000])
    ap.add_argument("--n-clusters", type=int, default=10, help="K, MCFS's eigenvectors")
    ap.add_argument("--count", type=int, default=10, help="LARS cardinality d")
    args = ap.parse_args(argv)
    X, _, informative = make_planted(args.n_samples, 100, 10, random_state=0)
    planted = set(informative.tolist())
    X = np.asarray(X, dtype=np.float64, order="F")
    noise = np.setdiff1d(np.arange(X.shape[1]), informative)
    print(f"make_planted({args.n_samples}, 100, 10), planted {sorted(planted)}")
    for m in args.anchors:
        g = anchor_graph(X, m, 5, random_state=check_random_state(0))
        C, lambdas = g.spectral_coefficients(args.n_clusters)
        Y, XtY = g.embed(C), g.transpose_dot_embedding(C)
        print(f"\n{m} landmarks, eigenvalues {np.round(lambdas, 4).tolist()}")
        for name, weights in (("weight 1 (Eq. 5)", None), ("weight 1 - lambda", 1.0 - lambdas)):
            s = mcfs_scores(X, Y, [args.count], XtY=XtY, weights=weights)[0][0]
            top = set(np.argsort(-s, kind="stable")[:10].tolist())
            print(f"  {name:18s}: {len(top & planted)} of 10 planted in the top 10, smallest "
                  f"planted score {s[informative].min():.3f}, largest noise score "
                  f"{s[noise].max():.3f}")
        for k in range(C.shape[1]):
            s = mcfs_scores(X, Y[:, k:k + 1], [args.count], XtY=XtY[:, k:k + 1])[0][0]
            j = int(np.argmax(s))
            print(f"  eigenvector {k}: lambda {lambdas[k]:.4f}, first feature {j} "
                  f"({'planted' if j in planted else 'noise'}, {s[j]:.2f})")


if __name__ == "__main__":
    main()
