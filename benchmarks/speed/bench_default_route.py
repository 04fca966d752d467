"""The default path, `ufsel select --data FILE`, timed against one MCFS run through the same CLI.

    UFSEL_DATA=/work/shared/data PYTHONPATH=src python benchmarks/speed/bench_default_route.py \
        [--cases planted,mnist10k,mnist70k] [--repeats 3] [--profile] [--out FILE.md]

The budget (the label-free route): the whole default route (K, the candidates, the
criterion, the count curve, the verdict and the stability) costs at most 3 single MCFS
runs on the same file through the same CLI (``--method mcfs --n-features K --no-verdict``,
its own K estimated), measured in the same run, alternating, with the caller's thread
setting (none set: the machine's default, as a user would have it). Each command is a fresh
process, so both include the start-up and the file read. Cases:

* ``planted``: a 2,000 x 36 CSV with 6 planted informative features among 30 of noise
  (``make_planted_clusters``, 5 clusters, seed 0); the route must keep only planted features;
* ``mnist10k``: the shared data set (10,000 x 784), skipped when ``UFSEL_DATA`` lacks it;
* ``mnist70k``: ``make_mnist70k_like`` (70,000 x 784), the route alone, with its time and
  peak memory (the goal: under 5 minutes on 2 cores).

With ``--profile`` the route also runs once under cProfile and the report lists where its
time goes (cumulative seconds of the route's stages).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "benchmarks" / "results" / "speed" / "default_route.md"
STAGES = ("estimate_n_clusters", "make_criterion", "feature_relevance", "gather_evidence",
          "fit_rankings", "feature_count_curve", "assess_selection", "selection_stability",
          "knn_graph", "spectral_embedding", "KMeans.fit")


def write_planted(folder):
    import pandas as pd

    from ufsel.datasets import make_planted_clusters

    X, _, informative = make_planted_clusters(n_samples=2000, n_informative=6, n_noise=30,
                                              n_clusters=5, random_state=0)
    path = Path(folder) / "planted_2000x36.csv"
    pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])]).to_csv(path, index=False)
    return path, informative


def write_mnist70k(folder):
    from ufsel.datasets import make_mnist70k_like

    data = make_mnist70k_like(random_state=0)  # a Bunch, like load_dataset
    path = Path(folder) / "mnist70k_like.npy"
    np.save(path, np.asarray(data.data, dtype=np.float32))
    return path


def run_cli(args, out):
    """Seconds and peak resident memory (MiB) of one ``ufsel select`` process."""
    cmd = [sys.executable, "-m", "ufsel.cli", "select", *args, "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - t0
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stdout}\n{res.stderr}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024, res.stdout


def sidecar(out):
    return json.loads(Path(str(out) + ".json").read_text())


def profile_route(data_path):
    """Cumulative seconds of the route's stages, from one in-process run under cProfile."""
    from ufsel import AutoSelector
    from ufsel.datasets import read_data

    X = read_data(data_path).data
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    AutoSelector().fit(X)
    prof.disable()
    total = time.perf_counter() - t0
    stats = pstats.Stats(prof, stream=io.StringIO())
    rows = {}
    for (file, _, func), (_, _, _, cum, _) in stats.stats.items():
        name = func if func != "fit" or "kmeans" not in file else "KMeans.fit"
        if name in STAGES:
            rows[name] = rows.get(name, 0.0) + cum
    return total, rows


def time_case(label, path, repeats, folder, log):
    route_out, mcfs_out = Path(folder) / f"{label}_route.csv", Path(folder) / f"{label}_mcfs.csv"
    route, mcfs, peak = [], [], 0.0
    for _ in range(repeats):  # alternating, so that a change in load hits both
        s, mem, _ = run_cli(["--data", str(path)], route_out)
        route.append(s)
        peak = max(peak, mem)
        k = sidecar(route_out)["parameters"]["n_features_to_select"]
        s, _, _ = run_cli(["--data", str(path), "--method", "mcfs", "--n-features", str(k),
                           "--no-verdict"], mcfs_out)
        mcfs.append(s)
        log(f"  {label}: route {route[-1]:.1f} s, MCFS {mcfs[-1]:.1f} s")
    return statistics.median(route), statistics.median(mcfs), peak, sidecar(route_out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="planted,mnist10k,mnist70k")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args(argv)
    cases = args.cases.split(",")
    lines = ["# The default path against one MCFS run", "",
             f"Command: `PYTHONPATH=src python benchmarks/speed/bench_default_route.py "
             f"--cases {args.cases} --repeats {args.repeats}"
             f"{' --profile' if args.profile else ''}`", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores; OMP_NUM_THREADS="
             f"{os.environ.get('OMP_NUM_THREADS', 'unset')}, UFSEL_NUM_THREADS="
             f"{os.environ.get('UFSEL_NUM_THREADS', 'unset')}; load average "
             f"{os.getloadavg()[0]:.1f} at the start (other jobs shared the cores); median of "
             f"{args.repeats} alternating runs, each a fresh `ufsel select` process.", "",
             "| case | n x d | route s | MCFS s | ratio (goal <= 3) | route's choice | "
             "peak MiB | note |", "|---|---|---|---|---|---|---|---|"]
    log = lambda s: print(s, flush=True)  # noqa: E731
    profiles = []
    with tempfile.TemporaryDirectory() as folder:
        for case in cases:
            note = ""
            if case == "planted":
                path, informative = write_planted(folder)
                shape = "2000 x 36"
            elif case == "mnist10k":
                data = Path(os.environ.get("UFSEL_DATA", "")) / "mnist10k.mat"
                if not data.is_file():
                    log("mnist10k: skipped (UFSEL_DATA has no mnist10k.mat)")
                    continue
                path, shape = data, "10000 x 784"
            elif case == "mnist70k":
                path, shape = write_mnist70k(folder), "70000 x 784"
            else:
                raise SystemExit(f"unknown case {case!r}")
            if case == "mnist70k":
                s, peak, _ = run_cli(["--data", str(path)], Path(folder) / "m70_route.csv")
                car = sidecar(Path(folder) / "m70_route.csv")
                route, mcfs = s, None
                note = "route alone (goal: under 5 min on 2 cores)"
            else:
                route, mcfs, peak, car = time_case(case, path, args.repeats, folder, log)
            chosen = (f"{car['method']}, k={car['parameters']['n_features_to_select']}, "
                      f"beats random: {car.get('beats_random')}")
            if case == "planted":
                import pandas as pd

                ranking = pd.read_csv(Path(folder) / "planted_route.csv")
                sel = set(ranking.loc[ranking["selected"], "feature"].astype(int))
                note = f"{len(sel & set(informative.tolist()))} of the 6 planted features kept"
            ratio = "-" if mcfs is None else f"{route / mcfs:.1f}"
            lines.append(f"| {case} | {shape} | {route:.1f} | "
                         f"{'-' if mcfs is None else f'{mcfs:.1f}'} | {ratio} | {chosen} | "
                         f"{peak:.0f} | {note} |")
            log(lines[-1])
            if args.profile and case != "mnist70k":
                total, rows = profile_route(path)
                profiles.append((case, total, rows))
    if profiles:
        lines += ["", "## Where the route's time goes (cProfile, cumulative seconds, one "
                      "in-process run; stages overlap: a candidate's fit includes its graph)",
                  "", "| case | total | " + " | ".join(STAGES) + " |",
                  "|---|---|" + "---|" * len(STAGES)]
        for case, total, rows in profiles:
            lines.append(f"| {case} | {total:.1f} | "
                         + " | ".join(f"{rows.get(s, 0.0):.1f}" for s in STAGES) + " |")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
