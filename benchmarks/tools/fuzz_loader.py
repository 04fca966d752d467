"""Long fuzzing run of the .mat loader (``ufsel.datasets.load_mat``).

Mutates copies of small valid files (synthetic seeds written to a temporary
folder, plus the smallest real benchmark files from ``UFSEL_DATA`` when set,
copied there; nothing is written into the repository) and checks that every
mutated file either raises a ``ValueError`` naming the file or loads data
that honour the loader's contract (2-D finite float64, one label per sample).

The loop runs in a child process so that a hard crash of the interpreter
(segfault inside a compiled parser) is caught: the parent records the
crashing input under ``--out/crashes`` and resumes after it. Anything else
(an exception of another type, a broken contract) is recorded as a failure
with its mutation list. Iteration ``i`` uses ``numpy.random.RandomState(i)``,
so any finding reproduces with ``--start i --n 1``.

Usage::

    UFSEL_DATA=../shared/data python benchmarks/tools/fuzz_loader.py --n 20000 --out fuzz_out

With atheris installed, ``--atheris`` runs coverage-guided fuzzing instead
(for as long as atheris is told to, e.g. ``-atheris_runs=100000``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import numpy as np

from ufsel.datasets._fuzz import (  # private: needs public API (shared with the tests)
    check_outcome,
    copy_real_files,
    mutate,
    write_seed_files,
)

KINDS = ("set", "flip", "truncate", "insert", "delete", "dup", "int32")


def mutations(i):
    rng = np.random.RandomState(i)
    ops = [(KINDS[rng.randint(len(KINDS))], float(rng.rand()),
            int(rng.randint(0, 2**32, dtype=np.int64))) for _ in range(rng.randint(1, 7))]
    return int(rng.randint(1 << 30)), ops


def child(args):
    """Run iterations [start, stop); print each outcome, and a JSON line per failure."""
    work = Path(args.out)
    seeds = sorted(Path(work, "seeds").rglob("*.mat"))
    current = work / "current.mat"
    for i in range(args.start, args.stop):
        which, ops = mutations(i)
        src = seeds[which % len(seeds)]
        blob = mutate(src.read_bytes(), ops)
        current.write_bytes(blob)
        (work / "current.json").write_text(json.dumps({"i": i, "seed": src.name, "ops": ops}))
        try:
            outcome = check_outcome(current)
        except Exception as exc:  # a broken contract or a non-ValueError
            outcome = "failure"
            print(json.dumps({"failure": i, "seed": src.name, "ops": ops,
                              "error": f"{type(exc).__name__}: {exc}",
                              "trace": traceback.format_exc(limit=3)}), flush=True)
        # one line per iteration (flushed), so a crash loses no count
        print(outcome, flush=True)


def parent(args):
    out = Path(args.out or tempfile.mkdtemp(prefix="ufsel_fuzz_"))
    out.mkdir(parents=True, exist_ok=True)
    seeds = write_seed_files(out / "seeds") + copy_real_files(out / "seeds" / "real")
    print(f"seeds: {[p.name for p in seeds]}")
    total = Counter()
    failures, crashes = [], []
    start, stop = args.start, args.start + args.n
    t0 = time.perf_counter()
    while start < stop:
        cmd = [sys.executable, __file__, "--child", "--start", str(start), "--stop", str(stop),
               "--out", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        for line in proc.stdout.splitlines():
            if line.startswith("{"):
                failures.append(json.loads(line))
            elif line in ("ok", "ValueError", "failure"):
                total[line] += 1
        if proc.returncode == 0:
            break
        # the child died (signal): the input it was reading is the crasher
        info = json.loads((out / "current.json").read_text())
        crash_dir = out / "crashes"
        crash_dir.mkdir(exist_ok=True)
        (crash_dir / f"crash_{info['i']}.mat").write_bytes((out / "current.mat").read_bytes())
        info["returncode"] = proc.returncode
        crashes.append(info)
        total["crash"] += 1
        start = info["i"] + 1
    elapsed = time.perf_counter() - t0
    report = {"iterations": args.n, "first": args.start, "outcomes": dict(total),
              "failures": len(failures), "crashes": len(crashes), "seconds": round(elapsed, 1),
              "seeds": [p.name for p in seeds], "out": str(out)}
    (out / "report.json").write_text(json.dumps({**report, "failure_records": failures,
                                                 "crash_records": crashes}, indent=1))
    print(json.dumps(report, indent=1))
    return 1 if failures or crashes else 0


def run_atheris(args):  # pragma: no cover - optional tool
    import atheris

    out = Path(args.out or tempfile.mkdtemp(prefix="ufsel_atheris_"))
    seeds = write_seed_files(out / "seeds") + copy_real_files(out / "seeds" / "real")
    blobs = [p.read_bytes() for p in seeds]
    target = out / "atheris.mat"

    def one_input(data):
        fdp = atheris.FuzzedDataProvider(data)
        base = blobs[fdp.ConsumeIntInRange(0, len(blobs) - 1)]
        ops = [(KINDS[fdp.ConsumeIntInRange(0, len(KINDS) - 1)], fdp.ConsumeProbability(),
                fdp.ConsumeIntInRange(0, 2**32 - 1)) for _ in range(fdp.ConsumeIntInRange(1, 6))]
        target.write_bytes(mutate(base, ops))
        check_outcome(target)

    atheris.Setup([sys.argv[0], *args.atheris_args], one_input)
    atheris.Fuzz()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="number of mutated files")
    ap.add_argument("--start", type=int, default=0, help="first iteration (its RNG seed)")
    ap.add_argument("--stop", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--atheris", action="store_true", help="coverage-guided run with atheris")
    args, rest = ap.parse_known_args(argv)
    args.atheris_args = rest
    if args.child:
        return child(args)
    if args.atheris:
        return run_atheris(args)
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
