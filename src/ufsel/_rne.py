"""RNE: Robust Neighbourhood Embedding feature selection (Liu et al., KBS 2020)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.linalg.blas import dgemm, dsymm, dsyrk
from sklearn.utils._param_validation import Interval, StrOptions

from ._iterate import ObjectiveTracker, PerCountRankingsMixin
from .base import BaseSelector, densify, warn_not_converged
from .graph import lle_weights
from .linalg import soft_threshold

__all__ = ["RNE", "rne_objective"]

#: Entries of H below this are set to 0: multiplicative updates drive unused
#: entries geometrically towards 0, and arithmetic on subnormal numbers is up to
#: 100x slower (it tripled the COIL20 fit time).
_FLUSH = 1e-100


def rne_objective(A, H, alpha):
    """Objective of RNE: ``||A H||_1 + (alpha / 4) ||H^T H - I||_F^2`` (H >= 0).

    ``A`` is the LLE residual matrix, ``(I - W^T) X`` or ``(I - W) X`` (see
    ``RNE(residual=...)``);
    ``H`` (n_features x m) is the relaxed selection matrix.
    """
    G = H.T @ H
    G[np.diag_indices_from(G)] -= 1.0
    return float(np.abs(A @ H).sum()) + 0.25 * alpha * float(np.sum(G * G))


class RNE(PerCountRankingsMixin, BaseSelector):
    """Robust neighbourhood embedding for unsupervised feature selection.

    Y. Liu, D. Ye, W. Li, H. Wang, Y. Gao. "Robust neighborhood embedding for
    unsupervised feature selection", Knowledge-Based Systems 193 (2020)
    105462. The LLE reconstruction weights W of the samples (Roweis & Saul)
    should be preserved by the selected features, measured with the robust
    l1 norm; a non-negative, (nearly) orthogonal ``H`` (d x m, m = number of
    selected features) relaxes the 0/1 selection matrix::

        min_{H >= 0}  ||A H||_1 + (alpha / 4) ||H^T H - I||_F^2,

    A the LLE residual matrix: ``(I - W^T) X`` by default, as the authors'
    code computes it, or ``(I - W) X`` (see ``residual`` below). Solved by
    ADMM with ``M = A H``, augmented Lagrangian
    ``||M||_1 + <Y, M - A H> + (mu / 2) ||M - A H||^2 + (alpha / 4) ||H^T H - I||^2``:

    - H: ``n_inner`` multiplicative updates (positive/negative parts of the
      gradient, square-root rule)
      ``H <- H o sqrt((alpha H + mu [A^T M]^+ + mu [A^T A]^- H + [A^T Y]^+) /
      (alpha H H^T H + mu [A^T M]^- + mu [A^T A]^+ H + [A^T Y]^-))``;
    - M: soft thresholding of ``A H - Y / mu`` at ``1 / mu``;
    - ``Y <- Y + mu (M - A H)``, ``mu <- min(rho mu, mu_max)``.

    Features are ranked by ``||h^i||_2``.

    Interpretations and reference-code details (the authors' code, see docs/guide/fidelity.md;
    ``RNE_obj.m``):

    - Equation numbers are not cited: no copy of the paper was available to
      this implementation (its abstract, and the authors' code as distributed in Auto-UFSTool), so the formulas are written out in full.
    - Defaults from the reference code: alpha = 1e3, mu0 = 10, rho = 1.1,
      mu_max = 1e10, 50 outer and 30 inner iterations, K = 5 neighbours (the
      demo sweeps K in 3..11).
    - H starts with uniform [0, 1) entries (seeded by ``random_state``)
      and unit-norm columns. The random rows are dealt to the features in
      the order of their residual norms (``||a_j||_1``, then ``||a_j||_2``),
      not in column order, so that permuting the features permutes H and the
      scores (exactly tied features aside). The reference code draws ``rand(d, m)`` and
      rescales the columns to unit norm before *every* multiplicative step;
      that per-step rescaling is not part of the objective and is not done
      here, but its first rescaling is kept as the initialisation: starting
      from raw ``rand`` (``H^T H`` of order d/3) the orthogonality penalty
      dominates the first steps and the iterates stall at markedly higher
      objective values (on planted data 924 vs 780, with the planted
      features lost).
    - LLE weights by :func:`ufsel.graph.lle_weights`, with the local Gram
      matrix regularised by ``1e-3 trace(C)`` when K > d (the reference
      ``LLE.m`` rule) and by a ``1e-12 trace(C)`` jitter otherwise.
    - The residual matrix (``residual``). ``LLE.m`` returns W with row i
      holding the weights of sample i's neighbours, and ``RNE_obj.m`` forms
      ``A = (I - W^T) X`` (``residual="transposed"``, the default). The LLE
      reconstruction error of sample i, ``x_i - sum_j w_ij x_j``, is row i
      of ``(I - W) X`` (``residual="reconstruction"``). Earlier ufsel
      versions took the transposition for a slip and used
      ``"reconstruction"``. The default now follows the authors' code, on
      the evidence of k-means on the selected raw columns over 11 data sets
      (``benchmarks/quality_rne.py``, full table in
      ``benchmarks/results/rne_residual_quality.md``). ACC at 50 / 100
      features:

      ============= ============= ============= =============
      data set      random        transposed    reconstruction
      ============= ============= ============= =============
      coil20        0.58 / 0.58   0.57 / 0.58   0.33 / 0.43
      orl           0.47 / 0.48   0.46 / 0.50   0.42 / 0.44
      jaffe         0.68 / 0.70   0.64 / 0.70   0.66 / 0.69
      yale          0.36 / 0.36   0.31 / 0.39   0.33 / 0.36
      imm40         0.44 / 0.46   0.47 / 0.46   0.53 / 0.53
      umist         0.40 / 0.41   0.39 / 0.43   0.38 / 0.39
      isolet        0.45 / 0.57   0.43 / 0.50   0.41 / 0.43
      usps          0.56 / 0.59   0.57 / 0.60   0.35 / 0.43
      palm          0.68 / 0.68   0.67 / 0.68   0.70 / 0.68
      mnist4k       0.38 / 0.44   0.37 / 0.42   0.42 / 0.42
      lung_discrete 0.63 / 0.62   0.62 / 0.65   0.62 / 0.60
      ============= ============= ============= =============

      Over the 22 cells, ``"transposed"`` is ahead in 15 for ACC and 16
      for NMI. Its mean margin over random subsets is -0.005 ACC, against
      -0.045 for ``"reconstruction"``. So neither form beats random subsets
      on average on raw data. ``"reconstruction"`` falls below them on the
      image and digit sets, where it picks near-constant background
      (COIL20 0.34, USPS 0.35), and is ahead on imm40 and palm. These fits
      used ``tol=1e-4``. With the default 50 iterations, ``"transposed"``
      gives the same ACC within 0.005 on the 10 sets rerun.

      What the choice means. The LLE weights of each sample sum to one, so
      ``(I - W) 1 = 0``: under ``"reconstruction"`` a constant feature has
      zero residual, near-constant features (image background) are nearly
      free, and RNE picks them. On raw COIL20 it picks background pixels:
      mean variance of the 50 selected pixels 0.004, against 0.062 over all
      pixels.

      ``(I - W^T) 1`` is not 0: the column sums of W (how often, and with
      what weight, a sample serves as a neighbour) enter the residual. A
      feature's offset then counts, ``(I - W^T)(x + c 1) = (I - W^T) x +
      c (1 - W^T 1)``, so ``"transposed"`` is not invariant to shifting a
      feature, while ``"reconstruction"`` is (both tested). On the planted
      Gaussian clusters of :func:`ufsel.datasets.make_planted_clusters`,
      ``"transposed"`` finds none of the 5 informative features (whose
      cluster means are offsets) where ``"reconstruction"`` finds about 4.
      Centre or scale the features first when their offsets are arbitrary.
    - m = the number of selected features (as in the reference code), so the
      scores depend on ``n_features_to_select``; :meth:`fit_rankings` fits once
      per count (the first k of an m > k fit are a different selection, see
      ``benchmarks/RESULTS_rne.md``).
    - ADMM is not a descent method; ``objective_`` records the objective at
      each outer iteration. By default (``tol=None``) all ``max_iter`` = 50
      outer iterations run, as in the reference code, which has no stopping
      test. With a number ``tol`` the iterations stop early once the relative
      objective change and the relative primal residual
      ``||M - A H|| / ||A H||`` both fall below ``tol``. That test is not a
      safe default. With ``residual="transposed"`` the objective is dominated
      by a term H barely moves at first (1.7e7 on JAFFE), so ``tol = 1e-4``
      ended the fit after 2 iterations, with H still close to its random
      start, and the selection was no better than random subsets.

    Scale: the objective is not scale invariant. It favours features of
    small magnitude, and with ``residual="reconstruction"`` it favours
    near-constant ones (see above). Scaling the features first helps the
    ``"reconstruction"`` form on COIL20. With unit-norm columns
    (``make_pipeline(FunctionTransformer(normalize, kw_args={"axis": 0}),
    RNE(...))``) it reaches the level of random subsets (ACC 0.58 / 0.61 at
    50 / 100 features). Standardising gives 0.50 / 0.53
    (``benchmarks/RESULTS_rne.md``). ufsel does not rescale X.

    Cost: LLE weights O(n k^2 d), ``A^T A`` once (O(n d^2)), then per inner
    step ``4 d^2 m + 3 d m^2`` flops (``2 d^2 m + 4 n d m + 3 d m^2`` when
    n < d / 2), 1500 steps with the defaults; two d x d matrices (one when
    n < d / 2); no n x n dense matrix. The products are BLAS-3 calls writing
    into preallocated buffers (see ``_MultiplicativeStep``). The step count
    makes the two d x d products the floor: on COIL20 (d = 1024) with m = 512
    (half the features, the default count) they alone are 3.2e12 flops, about
    a minute at the 54 GFLOP/s one core of the development machine reaches, so
    the default fit takes 2 to 3 minutes on one BLAS thread (124 s and 163 s
    measured on the shared machine under load; m = 50: 13 to 17 s).
    ``n_inner`` scales the cost linearly.

    Sparse X is densified (the LLE residuals A are dense n x d;
    :func:`ufsel.base.densify` refuses above ``MAX_DENSE_BYTES``).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Also m, the number of columns of H.
    n_neighbors : int, default=5
        K of the LLE graph.
    residual : {"transposed", "reconstruction"}, default="transposed"
        ``A = (I - W^T) X`` (the authors' ``RNE_obj.m``) or ``A = (I - W) X``
        (the LLE reconstruction errors), see the notes.
    alpha : float, default=1e3
        Orthogonality penalty.
    max_iter : int, default=50
    n_inner : int, default=30
    tol : float or None, default=None
        None runs all ``max_iter`` outer iterations, as the reference code
        does, with no convergence warning. A number stops early (see the notes).
    random_state : int, RandomState or None, default=None
        Seeds the initial H.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||h^i||_2^2``.
    H_ : ndarray of shape (n_features, m)
    objective_ : list of float
    n_iter_ : int
    ranking_, n_features_to_select_, n_features_in_

    References
    ----------
    .. [1] Y. Liu, D. Ye, W. Li, H. Wang, Y. Gao. Robust neighborhood
       embedding for unsupervised feature selection. Knowledge-Based Systems
       193:105462, 2020.

    Examples
    --------
    >>> from ufsel import RNE
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, y, informative = make_planted_clusters(random_state=0)
    >>> RNE(n_features_to_select=5, random_state=0).fit(X).transform(X).shape
    (200, 5)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "residual": [StrOptions({"reconstruction", "transposed"})],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "n_inner": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    _MU0, _RHO, _MU_MAX = 10.0, 1.1, 1e10

    def __init__(self, n_features_to_select=None, *, n_neighbors=5, residual="transposed",
                 alpha=1e3, max_iter=50, n_inner=30, tol=None, random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_neighbors = n_neighbors
        self.residual = residual
        self.alpha = alpha
        self.max_iter = max_iter
        self.n_inner = n_inner
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        rng = self._start_fit(X)
        X = np.asarray(densify(X, name), dtype=np.float64)
        # LLE reference rule: regularise C by 1e-3 trace(C) only when K > d
        Wl = lle_weights(X, self.n_neighbors, reg=1e-3 if self.n_neighbors > d else 1e-12)
        A = X - (Wl.T if self.residual == "transposed" else Wl) @ X
        m = self.n_features_to_select_
        alpha = self.alpha
        # uniform [0, 1) rows dealt to the features in an order fixed by their own
        # values, so that permuting the features permutes H (see Notes)
        order = np.lexsort((np.sum(A * A, axis=0), np.abs(A).sum(axis=0)))
        H = np.empty((d, m), order="F")
        H[order] = rng.random((d, m))
        H /= np.maximum(np.linalg.norm(H, axis=0), np.finfo(float).tiny)
        step = _MultiplicativeStep(A, alpha)
        M = A @ H
        Y = np.zeros_like(M)
        mu = self._MU0
        track = ObjectiveTracker(name, self.max_iter, self.tol,
                                 advice="Standardise the data or change alpha.",
                                 verbose=self.verbose)
        self.objective_ = track.values
        change = res = np.inf
        for _ in range(self.max_iter):
            step.start(A.T @ M, A.T @ Y, mu)
            for _ in range(self.n_inner):
                step(H)
            AH = A @ H
            M = soft_threshold(AH - Y / mu, 1.0 / mu)
            R = M - AH
            Y += mu * R
            mu = min(self._RHO * mu, self._MU_MAX)
            track.append(_objective(AH, H, alpha))
            change = track.last_change
            res = float(np.linalg.norm(R)) / max(float(np.linalg.norm(AH)), np.finfo(float).tiny)
            if self.tol is not None and max(change, res) < self.tol:
                break
        else:
            if self.tol is not None:  # None asks for max_iter iterations: nothing to warn about
                warn_not_converged(name, self.max_iter, max(change, res), self.tol)
        self.n_iter_ = track.n_iter
        self.H_ = np.ascontiguousarray(H)
        return np.sum(H * H, axis=1)


def _objective(AH, H, alpha):
    """:func:`rne_objective` from a precomputed ``A H``."""
    G = H.T @ H
    G[np.diag_indices_from(G)] -= 1.0
    return float(np.abs(AH).sum()) + 0.25 * alpha * float(np.sum(G * G))


class _MultiplicativeStep:
    """The H step of RNE, ``H <- H o sqrt(num / den)``, in place, with BLAS-3 products.

    ``num = alpha H + mu [A^T M]^+ + [A^T Y]^+ + mu [A^T A]^- H + eps`` and
    ``den = alpha H (H^T H) + mu [A^T M]^- + [A^T Y]^- + mu [A^T A]^+ H + eps``
    (``eps`` the machine epsilon, guarding 0 / 0). The same numbers as
    ``multiplicative_update(H, num, den, power=0.5)`` up to rounding, computed
    with fewer passes over memory:

    - the H-independent parts (and ``eps``) are summed once per outer
      iteration (:meth:`start`); each step copies them into two buffers and
      accumulates the products into those with ``beta = 1`` GEMMs;
    - ``alpha H`` rides on the ``[A^T A]^-`` product: that matrix has a zero
      diagonal (``(A^T A)_jj = ||a_j||^2 >= 0``), which is set to
      ``alpha / mu`` once per outer iteration;
    - ``H^T H`` by SYRK and ``H (H^T H)`` by SYMM (half the flops of a GEMM for
      the Gram matrix);
    - entries of H below ``_FLUSH`` are zeroed by a multiply with the mask
      (a boolean-index assignment cost as much as a 1024 x 512 GEMM slice).

    Products with ``[A^T A]^+`` and ``[A^T A]^-`` cost ``4 d^2 m`` flops a step.
    When ``n < d / 2`` they are formed instead from ``|A^T A| H`` (``2 d^2 m``)
    and ``A^T (A H)`` (``4 n d m``): ``[G]^+ H = (|G| H + G H) / 2`` and
    ``[G]^- H = (|G| H - G H) / 2``, which also halves the memory (one d x d
    matrix instead of two).
    """

    def __init__(self, A, alpha):
        n, d = A.shape
        self.alpha = alpha
        self.At = A.T  # Fortran-ordered view: BLAS reads it without a copy
        G = A.T @ A  # SYRK: exactly symmetric, so each d x d matrix is its own transpose
        self.factored = 2 * n < d
        if self.factored:
            self.absG = np.abs(G, out=G).T
        else:
            P = np.maximum(G, 0.0)
            self.P = P.T
            self.N = np.subtract(P, G, out=G).T  # [G]^- exactly (P - G is exact)
        self.num = np.empty((d, 0), order="F")
        self.den = self.num

    def start(self, AtM, AtY, mu):
        """Fix ``mu`` and the H-independent parts for the coming inner steps."""
        eps = np.finfo(float).eps
        self.mu = mu
        self.num0 = np.asfortranarray(mu * np.maximum(AtM, 0.0) + np.maximum(AtY, 0.0) + eps)
        self.den0 = np.asfortranarray(mu * np.maximum(-AtM, 0.0) + np.maximum(-AtY, 0.0) + eps)
        if self.num.shape != AtM.shape:
            self.num = np.empty(AtM.shape, order="F")
            self.den = np.empty(AtM.shape, order="F")
        if not self.factored:
            np.fill_diagonal(self.N, self.alpha / mu)

    def __call__(self, H):
        mu, alpha = self.mu, self.alpha
        num, den = self.num, self.den
        np.copyto(num, self.num0)
        np.copyto(den, self.den0)
        S = dsyrk(1.0, H, trans=1)  # upper triangle of H^T H
        den = dsymm(alpha, S, H, 1.0, den, side=1, overwrite_c=1)
        if self.factored:
            T = dgemm(1.0, self.absG, H)  # |G| H
            GH = dgemm(1.0, self.At, dgemm(1.0, self.At, H, trans_a=1))  # A^T (A H)
            half = 0.5 * mu
            den += half * (T + GH)
            num += half * (T - GH)
            num += alpha * H
        else:
            num = dgemm(mu, self.N, H, 1.0, num, overwrite_c=1)
            den = dgemm(mu, self.P, H, 1.0, den, overwrite_c=1)
        np.divide(num, den, out=num)
        np.sqrt(num, out=num)
        np.multiply(H, num, out=H)
        np.multiply(H, H >= _FLUSH, out=H)  # reached-0 entries stay 0; no subnormal arithmetic
