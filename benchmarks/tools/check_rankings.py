"""Fit every registered selector on a few data sets and record (or compare) its rankings.

A refactoring that must not change results is checked by running this script
before and after it::

    PYTHONPATH=src UFSEL_DATA=/work/shared/data python benchmarks/tools/check_rankings.py \
        --output before.json
    ... change the code ...
    PYTHONPATH=src UFSEL_DATA=/work/shared/data python benchmarks/tools/check_rankings.py \
        --output after.json --compare before.json

Every selector in ``ufsel.SELECTORS`` is fitted at its default parameters
(``n_features_to_select=10``, ``random_state=0`` where it has one) on
scikit-learn's digits and, when ``UFSEL_DATA`` is set, on a few small shared
data sets. The JSON maps ``"method/dataset"`` to the ``ranking_`` list and a
sha256 of ``scores_``. With ``--compare`` every difference is printed and the
exit status is 1 when any ranking differs (a differing score digest alone is
reported but does not fail). Runs on one thread (``ufsel.set_config``) so that
the results do not depend on the machine's core count.

The results can depend on the BLAS library's kernels, which OpenBLAS picks for the
processor (or from ``OPENBLAS_CORETYPE``): SOGFS on wine ranks tied scores by their
last bits (``benchmarks/studies/sogfs_wine_blas_kernel.md``). The JSON records the
BLAS libraries under ``"_blas"``, and ``--compare`` says when two runs used different
ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import warnings

import numpy as np

import ufsel
from ufsel.datasets import load_dataset

#: Data sets fitted when UFSEL_DATA is set (small, so the whole run stays near two minutes).
SHARED_DATASETS = ("wine", "lung_discrete", "jaffe")

#: (method, data set) pairs that take longer than about 20 s at one thread; not fitted.
SLOW_PAIRS: frozenset[tuple[str, str]] = frozenset()

N_FEATURES = 10


def datasets():
    """Name -> data matrix of the data sets to fit on."""
    out = {"digits": load_dataset("sklearn:digits").data}
    if os.environ.get("UFSEL_DATA"):
        for name in SHARED_DATASETS:
            out[name] = load_dataset(name).data
    return out


def fit_one(cls, X):
    est = cls(n_features_to_select=N_FEATURES)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X)
    scores = np.ascontiguousarray(est.scores_, dtype=np.float64)
    return {"ranking": [int(r) for r in est.ranking_],
            "scores_sha256": hashlib.sha256(scores.tobytes()).hexdigest()}


def record(methods=None, verbose=True):
    """Fit every (method, data set) pair; return ``{"method/dataset": result}``."""
    results = {}
    data = datasets()
    for method, cls in sorted(ufsel.SELECTORS.items()):
        if methods and method not in methods:
            continue
        for name, X in data.items():
            key = f"{method}/{name}"
            if (method, name) in SLOW_PAIRS:
                continue
            start = time.perf_counter()
            try:
                results[key] = fit_one(cls, X)
            except Exception as exc:  # a failure is a result too: it must not change
                results[key] = {"error": f"{type(exc).__name__}: {exc}"}
            if verbose:
                print(f"{key:32s} {time.perf_counter() - start:7.2f} s", flush=True)
    return results


def blas_kernels():
    """``"name version architecture"`` of each BLAS library loaded (threadpoolctl)."""
    from threadpoolctl import threadpool_info

    return sorted(f"{lib.get('internal_api')} {lib.get('version')} {lib.get('architecture')}"
                  for lib in threadpool_info() if lib.get("user_api") == "blas")


def compare(old, new):
    """Print every difference; return the number of differing rankings (or errors)."""
    n_bad = 0
    if old.get("_blas", new.get("_blas")) != new.get("_blas"):
        print(f"note: BLAS kernels differ ({old.get('_blas')} -> {new.get('_blas')}); "
              "rankings decided by last-bit ties may move")
    old = {k: v for k, v in old.items() if not k.startswith("_")}
    new = {k: v for k, v in new.items() if not k.startswith("_")}
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a is None or b is None:
            print(f"{key}: only in the {'new' if a is None else 'old'} run")
            continue
        if a.get("error") != b.get("error") or a.get("ranking") != b.get("ranking"):
            n_bad += 1
            if a.get("error") or b.get("error"):
                print(f"{key}: error differs: {a.get('error')!r} -> {b.get('error')!r}")
            else:
                ra, rb = np.asarray(a["ranking"]), np.asarray(b["ranking"])
                moved = np.flatnonzero(ra != rb)
                print(f"{key}: RANKING differs at {moved.size} features "
                      f"(first: feature {moved[0]} rank {ra[moved[0]]} -> {rb[moved[0]]})")
        elif a.get("scores_sha256") != b.get("scores_sha256"):
            print(f"{key}: same ranking, scores_ differ in some bits")
    return n_bad


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", default="rankings.json", help="JSON file to write")
    parser.add_argument("--compare", metavar="OLD.json", help="earlier output to compare with")
    parser.add_argument("--methods", nargs="*", help="registered names to fit (default: all)")
    args = parser.parse_args(argv)
    if hasattr(ufsel, "set_config"):
        ufsel.set_config(n_threads=1)
    else:  # a version older than the thread policy, run for a comparison
        from threadpoolctl import threadpool_limits

        threadpool_limits(1)
    results = record(set(args.methods or ()))
    n_results = len(results)
    results["_blas"] = blas_kernels()
    with open(args.output, "w", encoding="utf-8") as fh:
        json.dump(results, fh, indent=1, sort_keys=True)
    print(f"wrote {n_results} rankings to {args.output}")
    if args.compare:
        with open(args.compare, encoding="utf-8") as fh:
            old = json.load(fh)
        if args.methods:
            old = {k: v for k, v in old.items()
                   if k.startswith("_") or k.split("/")[0] in args.methods}
        n_bad = compare(old, results)
        n_old = sum(not k.startswith("_") for k in old)
        print(f"{n_bad} of {n_old} rankings differ from {args.compare}")
        return 1 if n_bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
