"""RNE: Robust Neighbourhood Embedding feature selection (Liu et al., KBS 2020)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy.linalg.blas import dgemm, dsymm, dsyrk
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import ObjectiveTracker, PerCountRankingsMixin
from ...base import BaseSelector, densify, warn_not_converged
from ...graph import lle_weights
from ...graph._memory import knn_terms
from ...linalg import soft_threshold
from ...utils._deprecation import renamed_attribute
from ...utils._memory import dense_copy_term, densified, local_terms

__all__ = ["RNE", "rne_objective"]

#: Entries of H below this are set to 0: multiplicative updates drive unused
#: entries geometrically towards 0, and arithmetic on subnormal numbers is much
#: slower than on normal ones.
_FLUSH = 1e-100


def rne_objective(A, H, alpha):
    """Objective of RNE: ``||A H||_1 + (alpha / 4) ||H^T H - I||_F^2`` (H >= 0).

    ``A`` is the LLE residual matrix, ``(I - W^T) X`` or ``(I - W) X`` (see
    ``RNE(residual=...)``);
    ``H`` (n_features x m) is the relaxed selection matrix.
    """
    return float(np.abs(A @ H).sum()) + _penalty(H, alpha)


class RNE(PerCountRankingsMixin, BaseSelector):
    """Robust Neighbourhood Embedding for unsupervised feature selection (RNE).

    Selects the features that best preserve the samples' locally linear
    reconstruction weights (LLE), measured with the robust l1 norm; a non-negative,
    nearly orthogonal matrix H relaxes the 0/1 selection and is found by ADMM (Liu,
    Ye, Li, Wang and Gao, KBS 2020 [1]_). Features are ranked by the row norms of H;
    the scores depend on ``n_features_to_select``.

    Sparse input is densified. The objective is not scale invariant (see Notes).

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Also m, the number of columns of H.
    n_neighbors : int, default=5
        K of the LLE graph.
    residual : {"transposed", "reconstruction"}, default="transposed"
        ``A = (I - W^T) X`` (the authors' ``RNE_obj.m``) or ``A = (I - W) X``
        (the LLE reconstruction errors), see Notes.
    alpha : float, default=1e3
        Orthogonality penalty.
    max_iter : int, default=50
        Maximum number of iterations.
    n_inner : int, default=30
        Multiplicative H-updates per outer iteration.
    tol : float or None, default=None
        None runs all ``max_iter`` outer iterations, as the reference code
        does, with no convergence warning. A number stops early (see Notes).
    random_state : int, RandomState or None, default=None
        Seeds the initial H.
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||h^i||_2^2``.
    W_ : ndarray of shape (n_features, m)
        The projection (H in the paper), non-negative.
    objective_ : list of float
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    JELSR
        Embedding from locally linear weights, with sparse regression.
    UDFS
        Local discriminative analysis with an l2,1 penalty.

    Notes
    -----
    **Objective** (H of shape (d, m), m the number of selected features)::

        min_{H >= 0}  ||A H||_1 + (alpha / 4) ||H^T H - I||_F^2

    with A the LLE residual matrix: ``(I - W^T) X`` by default, as the authors' code
    ``RNE_obj.m`` computes it, or ``(I - W) X`` (``residual="reconstruction"``), W the
    LLE weights of the samples. The paper's text was not available for checking, so
    no equation numbers are cited and the formulas are written out in full.

    **ADMM** with ``M = A H`` and the augmented Lagrangian
    ``||M||_1 + <Y, M - A H> + (mu / 2) ||M - A H||^2 + (alpha / 4) ||H^T H - I||^2``:

    - H: ``n_inner`` multiplicative updates (square-root rule on the positive and
      negative parts of the gradient)
      ``H <- H o sqrt((alpha H + mu [A^T M]^+ + mu [A^T A]^- H + [A^T Y]^+) /
      (alpha H H^T H + mu [A^T M]^- + mu [A^T A]^+ H + [A^T Y]^-))``;
    - M: soft thresholding of ``A H - Y / mu`` at ``1 / mu``;
    - ``Y <- Y + mu (M - A H)``, ``mu <- min(rho mu, mu_max)``.

    **Interpretations and reference-code details**:

    - Defaults from the reference code: alpha = 1e3, mu0 = 10, rho = 1.1,
      mu_max = 1e10, 50 outer and 30 inner iterations, 5 neighbours.
    - H starts with uniform [0, 1) entries and unit-norm columns. The random rows are
      dealt to the features in the order of their residual norms (``||a_j||_1``, then
      ``||a_j||_2``), so that permuting the features permutes H and the scores. The
      reference code rescales the columns before every multiplicative step; only its
      first rescaling is kept, as the initialisation (that rescaling is not part of
      the objective, and from raw ``rand`` the orthogonality penalty dominates and
      the iterates stall).
    - LLE weights by :func:`ufsel.graph.lle_weights`, the local Gram matrix
      regularised by ``1e-3 trace(C)`` when K > d (the reference ``LLE.m`` rule) and
      by a ``1e-12 trace(C)`` jitter otherwise.
    - ``residual``: the LLE reconstruction error of sample i is row i of
      ``(I - W) X`` (``"reconstruction"``); ``RNE_obj.m`` forms ``(I - W^T) X``
      (``"transposed"``, the default, chosen on k-means evidence over eleven data
      sets). Because each sample's weights sum to one, ``(I - W) 1 = 0``: under
      ``"reconstruction"`` constant and near-constant features (image background)
      are nearly free and get picked. ``(I - W^T) 1`` is not 0, so
      ``"transposed"`` depends on each feature's offset, and on clusters that
      differ by their means it can miss the informative features; centre or scale
      the features when their offsets are arbitrary. See the fidelity guide,
      `RNE: which residual <../../guide/fidelity.html#rne-which-residual>`__.
    - m is the number of selected features, as in the reference, so each count is
      its own problem. :meth:`fit_rankings` solves them in one run: the counts' H
      matrices advance side by side, each with its own random start (drawn in
      the order of the counts), multipliers, ``H^T H`` and stopping test, and only
      the products with ``A^T A`` and ``A`` are shared. The rankings are those of
      one fit per count.
    - ADMM is no descent method; ``objective_`` records the objective at each outer
      iteration. By default (``tol=None``) all ``max_iter`` iterations run, as in the
      reference code. With a number ``tol`` the fit stops once the relative objective
      change and the relative primal residual ``||M - A H|| / ||A H||`` both fall
      below it; with ``residual="transposed"`` that can stop the fit after very few
      iterations, with H still near its random start.
    - The objective favours features of small magnitude; ufsel does not rescale X.

    Cost: LLE weights O(n k^2 d), ``A^T A`` once (O(n d^2)), then per inner step
    ``4 d^2 m + 3 d m^2`` flops (``2 d^2 m + 4 n d m + 3 d m^2`` when n < d / 2),
    ``max_iter * n_inner`` steps; two d x d matrices (one when n < d / 2), no dense
    n x n matrix. With m of the order of d the two d x d products dominate, so the
    default count (half the features) on a thousand features takes minutes;
    ``n_inner`` scales the cost linearly. Solving several counts together
    (:meth:`fit_rankings`) costs the flops of the separate fits in fewer, larger
    products, which pays most when the counts are small.

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

    H_ = renamed_attribute("W_")

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

    def _memory_terms(self, shape):
        n, d = shape.n, shape.d
        return {**super()._memory_terms(shape), **dense_copy_term(shape),
                f"the {n} x {d} reconstruction residual": 3 * n * d * 8,
                **knn_terms(densified(shape), self.n_neighbors, weight=None), **local_terms(shape, self.n_neighbors)}

    def _fit(self, X):
        rng = self._start_fit(X)
        A = self._residual_matrix(X)
        H = self._initial_h(A, self.n_features_to_select_, rng)
        (H,), (track,) = self._admm(A, [H])
        self._keep(H, track)
        return np.sum(H * H, axis=1)

    def _fit_rankings(self, X, counts):
        """One ADMM run for all counts: the counts' H matrices advance in lockstep.

        Each count's problem is the one :meth:`fit` solves (its own random start,
        drawn in the order of the counts as separate fits would draw them; its
        own multipliers and ``H^T H``); only the products with ``A^T A`` and
        ``A`` are shared, as one product with the side-by-side matrices.
        """
        rng = self._start_fit(X)
        A = self._residual_matrix(X)
        # a random_state instance is shared and drawn from in the order of the counts
        Hs = [self._initial_h(A, k, rng if i == 0 else self._start_fit(X))
              for i, k in enumerate(counts)]
        Hs, tracks = self._admm(A, Hs)
        rankings = {}
        for k, H in zip(counts, Hs):
            self._set_scores(np.sum(H * H, axis=1), None, X=X)
            rankings[k] = self.ranking_.copy()
        self._keep(Hs[-1], tracks[-1])
        return rankings

    def _residual_matrix(self, X):
        """The LLE residual matrix A of validated X (see Notes)."""
        d = X.shape[1]
        X = np.asarray(densify(X, type(self).__name__), dtype=np.float64)
        # LLE reference rule: regularise C by 1e-3 trace(C) only when K > d
        Wl = lle_weights(X, self.n_neighbors, reg=1e-3 if self.n_neighbors > d else 1e-12)
        return X - (Wl.T if self.residual == "transposed" else Wl) @ X

    @staticmethod
    def _initial_h(A, m, rng):
        """Uniform [0, 1) rows dealt to the features in an order fixed by their own
        values (so that permuting the features permutes H), columns of unit norm."""
        d = A.shape[1]
        order = np.lexsort((np.sum(A * A, axis=0), np.abs(A).sum(axis=0)))
        H = np.empty((d, m), order="F")
        H[order] = rng.random((d, m))
        H /= np.maximum(np.linalg.norm(H, axis=0), np.finfo(float).tiny)
        return H

    def _keep(self, H, track):
        self.objective_ = track.values
        self.n_iter_ = track.n_iter
        self.W_ = np.ascontiguousarray(H)

    def _admm(self, A, Hs):
        """ADMM on the blocks ``Hs`` side by side; the final blocks and their trackers.

        Every block runs the iteration :class:`RNE` describes, with the shared
        ``mu`` schedule; with a ``tol``, a block that has converged leaves the
        batch and the others go on.
        """
        name = type(self).__name__
        alpha = self.alpha
        step = _MultiplicativeStep(A, alpha)
        H = np.asfortranarray(np.hstack(Hs))  # the active blocks side by side
        M = A @ H
        Y = np.zeros_like(M)
        mu = self._MU0
        tracks = [ObjectiveTracker(name, self.max_iter, self.tol,
                                   advice="Standardise the data or change alpha.",
                                   verbose=self.verbose if b == len(Hs) - 1 else 0)
                  for b in range(len(Hs))]
        active = list(range(len(Hs)))
        ends = np.cumsum([h.shape[1] for h in Hs]).tolist()
        bounds = list(zip([0, *ends[:-1]], ends))
        gaps = [np.inf] * len(Hs)
        for _ in range(self.max_iter):
            step.start(A.T @ M, A.T @ Y, mu, bounds)
            for _ in range(self.n_inner):
                step(H)
            AH = A @ H
            M = soft_threshold(AH - Y / mu, 1.0 / mu)
            R = M - AH
            Y += mu * R
            # per-column sums, added up per block (no copies of the blocks)
            l1, sq_ah, sq_r = np.abs(AH).sum(axis=0), _column_sq(AH), _column_sq(R)
            for b, (lo, hi) in zip(active, bounds):
                tracks[b].append(float(l1[lo:hi].sum()) + _penalty(H[:, lo:hi], alpha))
                res = np.sqrt(sq_r[lo:hi].sum() / max(sq_ah[lo:hi].sum(), np.finfo(float).tiny))
                gaps[b] = max(tracks[b].last_change, float(res))
            mu = min(self._RHO * mu, self._MU_MAX)
            if self.tol is None:
                continue
            done = [i for i, b in enumerate(active) if gaps[b] < self.tol]
            if done:  # converged blocks leave the batch
                for i in done:
                    Hs[active[i]] = H[:, slice(*bounds[i])].copy(order="F")
                keep = [i for i in range(len(active)) if i not in done]
                if not keep:
                    active = []
                    break
                cols = np.concatenate([np.arange(*bounds[i]) for i in keep])
                H, M, Y = np.asfortranarray(H[:, cols]), M[:, cols], Y[:, cols]
                active = [active[i] for i in keep]
                ends = np.cumsum([hi - lo for lo, hi in (bounds[i] for i in keep)]).tolist()
                bounds = list(zip([0, *ends[:-1]], ends))
        for b, (lo, hi) in zip(active, bounds):
            Hs[b] = H[:, lo:hi]
        if self.tol is not None and active:  # None asks for max_iter iterations
            warn_not_converged(name, self.max_iter, max(gaps[b] for b in active), self.tol)
        return Hs, tracks


def _penalty(H, alpha):
    """The orthogonality term of :func:`rne_objective`, ``(alpha / 4) ||H^T H - I||_F^2``."""
    G = H.T @ H
    G[np.diag_indices_from(G)] -= 1.0
    return 0.25 * alpha * float(np.sum(G * G))


def _column_sq(Z):
    """Squared norm of each column of Z."""
    return np.einsum("ij,ij->j", Z, Z)


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

    def start(self, AtM, AtY, mu, bounds=None):
        """Fix ``mu``, the H-independent parts and the column blocks of H (``[(lo,
        hi), ...]``, each block one problem with its own ``H^T H``; None: one
        block) for the coming inner steps."""
        eps = np.finfo(float).eps
        self.mu = mu
        self.bounds = bounds if bounds is not None else [(0, AtM.shape[1])]
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
        if len(self.bounds) == 1:
            S = dsyrk(1.0, H, trans=1)  # upper triangle of H^T H
            den = dsymm(alpha, S, H, 1.0, den, side=1, overwrite_c=1)
        else:
            for lo, hi in self.bounds:
                Hb = H[:, lo:hi]
                S = dsyrk(1.0, Hb, trans=1)
                den[:, lo:hi] = dsymm(alpha, S, Hb, 1.0, den[:, lo:hi], side=1)
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
