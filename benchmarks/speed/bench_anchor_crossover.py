"""CPU time of LaplacianScore and MCFS on the k-NN graph and on the anchor graph, by n.

Where ``graph="auto"`` switches from the k-NN graph to the anchor graph
(``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES``): the fit's CPU time with each graph (their
defaults: the k-NN search of ``neighbors_algorithm="auto"``, 1,000 landmarks) on the
first n rows of the 70,000 x 784 MNIST-like set::

    PYTHONPATH=src UFSEL_DATA=/work/shared/data OMP_NUM_THREADS=1 \
        python benchmarks/speed/bench_anchor_crossover.py --n 10000 25000 50000
"""

from __future__ import annotations

import argparse
import os
import time

from ufsel import MCFS, LaplacianScore
from ufsel.datasets import make_mnist70k_like


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", nargs="+", type=int, default=[10_000, 25_000, 50_000])
    ap.add_argument("--methods", nargs="+", default=["laplacianscore", "mcfs"])
    args = ap.parse_args(argv)
    data = make_mnist70k_like(n_samples=max(args.n), random_state=0).data
    print(f"load {os.getloadavg()[0]:.1f}; CPU seconds per fit")
    print("method,n,graph,cpu_s,wall_s")
    for n in args.n:
        X = data[:n]
        for method in args.methods:
            cls = {"laplacianscore": LaplacianScore, "mcfs": MCFS}[method]
            for graph in ("knn", "anchor"):
                t0, c0 = time.perf_counter(), time.process_time()
                cls(10, graph=graph, random_state=0).fit(X)
                print(f"{method},{n},{graph},{time.process_time() - c0:.1f},"
                      f"{time.perf_counter() - t0:.1f}", flush=True)


if __name__ == "__main__":
    main()
