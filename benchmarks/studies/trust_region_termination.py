"""How the Riemannian trust region ends on random problems: converged or not, and at what gradient.

    PYTHONPATH=src OMP_NUM_THREADS=1 python benchmarks/studies/trust_region_termination.py [--problems 300]

Problems ``min Tr(W^T A W) - 2 Tr(W^T B)`` on ``W^T W = I`` from the test suite's
``random_stiefel_problem`` (test_orth.py): A with k negative eigenvalues in [-5, -1] and
d - k in [0, 10^u] (u uniform in [0, 4]), d in [5, 40), k in [1, 5); every second
problem has B = 0 (flat rotations inside span(W)), the others a random B; every third
asks for ``gtol=1e-15`` (below the rounding floor), the others use the default. Prints, per kind, how many solves reported convergence, how many
reported it with a relative gradient above 1e-9 (a false report), and how many did not
converge. Run it with another version's ``src`` on PYTHONPATH to compare.
"""

import argparse
from collections import Counter

import numpy as np

from ufsel.linalg import stiefel_quadratic
from ufsel.linalg.tests.test_orth import random_stiefel_problem


def half_riemannian_gradient(W, AW, B):
    """Half the Riemannian gradient of ``Tr(W^T A W) - 2 Tr(W^T B)`` on the Stiefel manifold
    (embedded metric): ``Z - W sym(W^T Z)`` with ``Z = A W - B``."""
    Z = AW - B
    WtZ = W.T @ Z
    return Z - W @ (0.5 * (WtZ + WtZ.T))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=300)
    args = ap.parse_args()
    counts = Counter()
    worst = {}
    for seed in range(args.problems):
        A, B, _ = random_stiefel_problem(seed)
        gtol = 1e-15 if seed % 3 == 0 else None
        W, _, ok = stiefel_quadratic(A, B, method="trust_region", random_state=0, gtol=gtol,
                                     return_converged=True)
        AW = A @ W
        rel = float(np.linalg.norm(half_riemannian_gradient(W, AW, B))
                    / (np.linalg.norm(AW) + np.linalg.norm(B)))
        kind = ("B = 0" if seed % 2 == 0 else "B random") + (
            ", gtol 1e-15" if gtol else ", default gtol")
        counts[kind, "solves"] += 1
        counts[kind, "converged"] += ok
        counts[kind, "converged, gradient > 1e-9"] += ok and rel > 1e-9
        counts[kind, "not converged"] += not ok
        worst[kind] = max(worst.get(kind, 0.0), rel)
    for kind in sorted({k for k, _ in counts}):
        print(f"{kind:26s} solves {counts[kind, 'solves']:4d}  converged "
              f"{counts[kind, 'converged']:4d}  of which gradient > 1e-9: "
              f"{counts[kind, 'converged, gradient > 1e-9']:3d}  not converged "
              f"{counts[kind, 'not converged']:3d}  largest final relative gradient "
              f"{worst[kind]:.1e}")


if __name__ == "__main__":
    main()
