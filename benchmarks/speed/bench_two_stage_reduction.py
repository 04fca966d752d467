"""Would a two-stage tridiagonal reduction make DGUFS's L-step cheaper? Time its pieces.

    OMP_NUM_THREADS=1 python benchmarks/speed/bench_two_stage_reduction.py [--n 1797] [--repeats 3]

DGUFS spends most of a fit in one dense symmetric eigendecomposition of order n per
iteration (1797 on digits), and every LAPACK driver starts it with the Householder
reduction to tridiagonal form (``dsytrd``), half of whose flops are matrix-vector
products. LAPACK 3.7's two-stage reduction does the same in a level-3 first stage
(dense to band, ``dsytrd_sy2sb``) and a cheap second one (band to tridiagonal); SciPy
wraps neither, and LAPACK implements the two-stage drivers only without eigenvectors.
This script times, on a random symmetric matrix of order n:

- the eigenvalues by SciPy's ``eigh`` (``dsyevd``: one-stage reduction, then the
  tridiagonal eigenvalues), and the 40 largest eigenpairs (``dsyevr``), which is
  what a late DGUFS L-step computes;
- ``dsytrd_sy2sb`` for several band widths, called through ctypes from the OpenBLAS
  that SciPy's wheels bundle (skipped when that library or symbol is not found, e.g.
  a SciPy built against another LAPACK);
- the eigenvalues of the band matrix it returns (``scipy.linalg.eig_banded``), the
  cheapest way SciPy offers to finish from the band, and a check that they equal the
  dense ones.

The first stage alone would have to be much cheaper than the whole one-stage
eigenvalue computation, and the band stage cheap, for the two-stage route to pay.
"""

from __future__ import annotations

import argparse
import ctypes
import glob
import os
import sys
import time

import numpy as np
import scipy
import scipy.linalg as sl


def best_of(f, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def bundled_sy2sb():
    """``dsytrd_sy2sb`` of the OpenBLAS bundled with SciPy's wheels, or None."""
    libs = glob.glob(os.path.join(os.path.dirname(scipy.__file__) + ".libs",
                                  "libscipy_openblas*.so*"))
    for path in libs:
        lib = ctypes.CDLL(path)
        for name in ("scipy_dsytrd_sy2sb_", "dsytrd_sy2sb_"):
            if hasattr(lib, name):
                return getattr(lib, name)
    return None


def sy2sb(func, A, kd):
    """Reduce the symmetric A (lower triangle) to a band of half-width kd: returns the band
    in ``eig_banded``'s lower storage and the seconds the call took."""
    n = A.shape[0]
    a = np.asfortranarray(A.copy())
    ab = np.zeros((kd + 1, n), order="F")
    tau = np.zeros(max(n - kd, 1))
    info = ctypes.c_int(0)
    ci = ctypes.c_int

    def call(work, lwork):
        func(ctypes.c_char_p(b"L"), ctypes.byref(ci(n)), ctypes.byref(ci(kd)),
             a.ctypes.data_as(ctypes.c_void_p), ctypes.byref(ci(n)),
             ab.ctypes.data_as(ctypes.c_void_p), ctypes.byref(ci(kd + 1)),
             tau.ctypes.data_as(ctypes.c_void_p), work.ctypes.data_as(ctypes.c_void_p),
             ctypes.byref(ci(lwork)), ctypes.byref(info), ctypes.c_size_t(1))

    query = np.zeros(1)
    call(query, -1)
    work = np.zeros(int(query[0]))
    t = time.perf_counter()
    call(work, work.size)
    elapsed = time.perf_counter() - t
    if info.value != 0:
        raise RuntimeError(f"dsytrd_sy2sb returned info={info.value}")
    return ab, elapsed


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1797, help="order (digits: 1797)")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many runs")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    A = rng.standard_normal((args.n, args.n))
    A = A + A.T
    n, r = args.n, args.repeats
    print(f"n = {n}, best of {r}, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"eigh, eigenvalues only (dsyevd):     "
          f"{best_of(lambda: sl.eigh(A, eigvals_only=True, check_finite=False), r):.3f} s")
    print(f"eigh, 40 largest eigenpairs (dsyevr): "
          f"{best_of(lambda: sl.eigh(A, subset_by_index=(n - 40, n - 1), check_finite=False), r):.3f} s")
    func = bundled_sy2sb()
    if func is None:
        print("dsytrd_sy2sb: not found in a SciPy-bundled OpenBLAS; skipped")
        return 0
    exact = np.linalg.eigvalsh(A)
    for kd in (16, 32, 64):
        times = [sy2sb(func, A, kd)[1] for _ in range(r)]
        ab, _ = sy2sb(func, A, kd)
        t = time.perf_counter()
        w = sl.eig_banded(ab, lower=True, eigvals_only=True)
        band = time.perf_counter() - t
        err = np.max(np.abs(np.sort(w) - exact)) / np.max(np.abs(exact))
        print(f"dsytrd_sy2sb, half-width {kd:2d}: {min(times):.3f} s; then eig_banded "
              f"eigenvalues {band:.3f} s (largest relative difference {err:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
