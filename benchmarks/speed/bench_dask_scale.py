"""Selectors on a lazily generated dask array beyond one machine's memory, on a LocalCluster.

One command::

    PYTHONPATH=src OMP_NUM_THREADS=1 python benchmarks/speed/bench_dask_scale.py \
        [--n-samples 10000000] [--methods maxvariance pivotedqr laplacianscore spec mcfs spcafs ndfs rsfs] \
        [--memory-limit 2GB] [--check-rows 200000] [--output dask_scale.csv]

The data: :func:`ufsel.datasets.make_planted_dask`, n x 100 float32, 10 planted
features carrying 10 clusters, chunks of 100,000 rows, never materialised. The cluster:
2 worker processes of one thread and ``--memory-limit`` each. Every method selects 10
features; the script reports, per method, the wall time, the peak memory of each worker
(polled from the scheduler every 0.5 s, and the cluster's total from distributed's
``MemorySampler``), whether any worker was lost (a worker past its limit is restarted by
the nanny), how many planted features are among the 10 selected, and, on the first
``--check-rows`` rows, whether the dask ranking equals the in-memory one.
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import threading
import time

import numpy as np

import ufsel
from ufsel.datasets import make_planted_dask
from ufsel.utils import atomic_open

METHODS = {
    "maxvariance": ("MaxVariance", {}),
    "pivotedqr": ("PivotedQR", {}),
    "laplacianscore": ("LaplacianScore", {"random_state": 0}),
    "spec": ("SPEC", {"n_clusters": 10, "random_state": 0}),
    "mcfs": ("MCFS", {"n_clusters": 10, "random_state": 0}),
    "spcafs": ("SPCAFS", {"n_components": 10}),
    # iterative: F, X W (and RSFS's Z) persisted on the workers, (3 c + 2 s) x 8 bytes a row
    "ndfs": ("NDFS", {"n_clusters": 10, "random_state": 0}),
    "rsfs": ("RSFS", {"n_clusters": 10, "random_state": 0}),
}


class WorkerPeaks:
    """Peak memory of every worker, polled from the scheduler in a thread."""

    def __init__(self, client, interval=0.5):
        self.client, self.interval, self.peaks = client, interval, {}
        self._stop = threading.Event()

    def _poll(self):
        while not self._stop.is_set():
            try:
                for addr, info in self.client.scheduler_info()["workers"].items():
                    mem = info.get("metrics", {}).get("memory", 0)
                    self.peaks[addr] = max(self.peaks.get(addr, 0), mem)
            except Exception:  # noqa: BLE001 - the scheduler is busy; poll again
                pass
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-samples", type=int, default=10_000_000)
    ap.add_argument("--n-features", type=int, default=100)
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--memory-limit", default="2GB")
    ap.add_argument("--check-rows", type=int, default=200_000)
    ap.add_argument("--output", default=None)
    args = ap.parse_args(argv)

    from dask.distributed import Client, LocalCluster
    from distributed.diagnostics import MemorySampler

    X, _, informative = make_planted_dask(args.n_samples, args.n_features, 10,
                                          chunks=args.chunks, random_state=0)
    print(f"{platform.node()}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
          f"X {X.shape} float32 = {X.nbytes / 2**30:.2f} GiB lazily, chunks {X.chunksize}; "
          f"planted features {informative.tolist()}", flush=True)
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit=args.memory_limit,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        limit = min(w["memory_limit"] for w in client.scheduler_info()["workers"].values())
        sampler = MemorySampler()
        for name in args.methods:
            cls_name, params = METHODS[name]
            cls = getattr(ufsel, cls_name)
            workers_before = set(client.scheduler_info()["workers"])
            with WorkerPeaks(client) as peaks, sampler.sample(name, interval=0.5):
                t0, c0 = time.perf_counter(), time.process_time()
                sel = cls(10, **params).fit(X)
                wall, client_cpu = time.perf_counter() - t0, time.process_time() - c0
            lost = len(workers_before - set(client.scheduler_info()["workers"]))
            found = np.intersect1d(np.flatnonzero(sel.get_support()), informative).size
            part = X[:args.check_rows]
            lazy = cls(10, **params).fit(part)
            mem = cls(10, **params).fit(part.compute())
            same = bool(np.array_equal(lazy.ranking_, mem.ranking_))
            total_peak = float(sampler.to_pandas()[name].max()) if name in sampler.samples else 0.0
            row = {"method": cls_name, "n_samples": args.n_samples, "wall_s": round(wall, 1),
                   "client_cpu_s": round(client_cpu, 1),
                   "peak_worker_mib": round(max(peaks.peaks.values(), default=0) / 2**20),
                   "cluster_peak_mib": round(total_peak / 2**20),
                   "worker_limit_mib": round(limit / 2**20), "workers_lost": lost,
                   "planted_in_top10": found,
                   f"dask_equals_memory_{args.check_rows}": same}
            rows.append(row)
            print(row, flush=True)
    print(f"load at the end {os.getloadavg()[0]:.1f}")
    if args.output:
        with atomic_open(args.output, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
