"""Where a second BLAS/OpenMP thread starts to pay: the thread policy's SMALL_PROBLEM_SIZE.

    PYTHONPATH=src python benchmarks/speed/bench_threads.py [--methods mcfs,spcafs] \
        [--repeats 3] [--busy]

Fits each method on random clustered data of growing size n x d with one and with two
threads (``ufsel.config_context(n_threads=...)``, which overrides the policy), median of
``--repeats`` alternating fits, and prints the ratio. ``--busy`` runs a spinning process
on one core meanwhile, as on a shared machine: the case the policy guards against.
The policy (``ufsel.utils.SMALL_PROBLEM_SIZE``) runs problems with fewer than that many
entries n * d on one thread.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import time

import numpy as np


def _spin(stop):
    while not stop.is_set():
        sum(i * i for i in range(10_000))


def _data(n, d, seed=0):
    rng = np.random.RandomState(seed)
    centres = 3.0 * rng.standard_normal((5, d))
    return centres[rng.randint(5, size=n)] + rng.standard_normal((n, d))


def time_fit(method, X, threads, repeats):
    import ufsel

    cls = ufsel.get_selector(method)
    params = {"n_features_to_select": max(1, X.shape[1] // 10)}
    if "random_state" in cls().get_params():
        params["random_state"] = 0
    out = []
    for _ in range(repeats):
        with ufsel.config_context(n_threads=threads):
            t0 = time.perf_counter()
            cls(**params).fit(X)
            out.append(time.perf_counter() - t0)
    return statistics.median(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default="mcfs,spcafs")
    ap.add_argument("--sizes", default="200x50,400x1024,1000x1000,2000x1000,5000x784")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--busy", action="store_true")
    args = ap.parse_args(argv)
    from ufsel.utils import SMALL_PROBLEM_SIZE

    stop = multiprocessing.Event()
    spinner = multiprocessing.Process(target=_spin, args=(stop,), daemon=True)
    if args.busy:
        spinner.start()
    try:
        print(f"SMALL_PROBLEM_SIZE = {SMALL_PROBLEM_SIZE:,}; other core "
              f"{'busy' if args.busy else 'idle'}")
        print("| method | n x d | n*d | 1 thread s | 2 threads s | 2 / 1 | policy |")
        print("|---|---|---|---|---|---|---|")
        for method in args.methods.split(","):
            for size in args.sizes.split(","):
                n, d = (int(v) for v in size.split("x"))
                X = _data(n, d)
                one = time_fit(method, X, 1, args.repeats)
                two = time_fit(method, X, 2, args.repeats)
                policy = "1 thread" if n * d < SMALL_PROBLEM_SIZE else "caller's"
                print(f"| {method} | {n} x {d} | {n * d:,} | {one:.2f} | {two:.2f} | "
                      f"{two / one:.2f} | {policy} |", flush=True)
    finally:
        stop.set()
        if spinner.is_alive():
            spinner.join(timeout=5)


if __name__ == "__main__":
    main()
