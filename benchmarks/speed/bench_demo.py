"""Wall and CPU time of ``make demo`` (``python -m ufsel.demo``), from an empty results folder.

Runs the demo in a fresh process with a new results folder (so nothing comes from a cache),
and reports its wall time, the time until its first selector's line, and the CPU time of the
demo with every process it started (worker processes and the capped fits' processes
included: this script makes itself their subreaper and collects their CPU time when they
end). ``--ref OLD/src`` times another version of the package the same way, in the same run,
for a ratio. The environment's thread settings are passed on (``OMP_NUM_THREADS=1`` as in
``make demo`` on the shared machine).

    OMP_NUM_THREADS=1 PYTHONPATH=src python benchmarks/speed/bench_demo.py [--all] [--ref OLD/src]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PR_SET_CHILD_SUBREAPER = 36


def _reap_orphans():
    """Wait for every descendant left behind (reparented here), so that its CPU time counts."""
    while True:
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def _children_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def time_demo(src, extra_args=()):
    """Run the demo with ``src`` first on the path; its wall time, time to the first
    selector's line, CPU time (every descendant) and last lines of output."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    with tempfile.TemporaryDirectory(prefix="ufsel_demo_") as tmp:
        cpu0 = _children_cpu()
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "ufsel.demo", "--out",
                                 str(Path(tmp) / "demo_results"), *extra_args],
                                cwd=tmp, env=env, stdout=subprocess.PIPE, text=True)
        first, lines = None, []
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
            # the first row with a selector's numbers (the demo's table rows start with a name)
            if first is None and line[:1].isalpha() and line.rstrip().endswith(" s"):
                first = time.perf_counter() - t0
        proc.wait()
        wall = time.perf_counter() - t0
        _reap_orphans()
        cpu = _children_cpu() - cpu0
    if proc.returncode:
        raise SystemExit(f"the demo failed (exit {proc.returncode}):\n" + "\n".join(lines[-20:]))
    return {"wall": wall, "first": first, "cpu": cpu, "tail": lines[-3:]}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--all", action="store_true", help="time `make demo-all` (--all)")
    p.add_argument("--ref", type=Path, help="another version's src/ folder, timed in the same run")
    args = p.parse_args(argv)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    extra = ["--all"] if args.all else []
    versions = [("this tree", ROOT / "src", extra)]
    if args.ref is not None:
        # an older demo has no --all: it always ran every selector
        versions.append((str(args.ref), args.ref.resolve(), []))
    print(f"load before: {os.getloadavg()[0]:.2f}, OMP_NUM_THREADS="
          f"{os.environ.get('OMP_NUM_THREADS', 'unset')}", flush=True)
    for label, src, ex in versions:
        r = time_demo(src, ex)
        first = "n/a" if r["first"] is None else f"{r['first']:.1f} s"
        print(f"{label}: wall {r['wall']:.1f} s, first selector's line after {first}, "
              f"CPU {r['cpu']:.1f} s (load now {os.getloadavg()[0]:.2f})", flush=True)
        for line in r["tail"]:
            print(f"    {line}")


if __name__ == "__main__":
    main()
