"""EUFS: Embedded Unsupervised Feature Selection (Wang, Tang, Liu, AAAI 2015)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.cluster import KMeans
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import ObjectiveTracker
from ...base import (
    BaseSelector,
    densify,
    warn_not_converged,
)
from ...graph import WEIGHTS, graph_laplacian
from ...graph._memory import knn_terms
from ...linalg import l2p_norm, row_soft_threshold, scaled_indicator
from ...utils._memory import dense_copy_term, densified, embedding_term

__all__ = ["EUFS", "eufs_objective"]

_BLOCK_BYTES = 1 << 17  # rows of the n x d updates processed together (in cache)


def eufs_objective(X, U, V, L, *, alpha, beta):
    """The EUFS objective: ``||X - U V^T||_{2,1} + alpha ||V||_{2,1} + beta Tr(U^T L U)``.

    X is (n_samples, n_features), U (n_samples, c) the latent cluster
    indicator, V (n_features, c) the feature loadings, L the graph Laplacian.
    """
    R = X - U @ V.T
    return l2p_norm(R) + alpha * l2p_norm(V) + beta * float(np.sum(U * (L @ U)))


def _procrustes(N):
    """``argmax_{U^T U = I} Tr(U^T N)`` = ``P Q^T`` from the thin SVD ``N = P Sigma Q^T``."""
    P, _, Qt = linalg.svd(N, full_matrices=False)
    return P @ Qt


def _nonneg_quadratic(L, T, beta, mu, Z0, n_steps, lip):
    """``argmin_{Z >= 0} beta Tr(Z^T L Z) + mu/2 ||Z - T||^2`` by accelerated projected gradient."""
    step = 1.0 / (2.0 * beta * lip + mu)
    Z = Z0.copy()
    Yk, tk = Z.copy(), 1.0
    for _ in range(n_steps):
        grad = 2.0 * beta * (L @ Yk) + mu * (Yk - T)
        Zn = np.maximum(Yk - step * grad, 0.0)
        tn = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * tk * tk))
        Yk = Zn + ((tk - 1.0) / tn) * (Zn - Z)
        Z, tk = Zn, tn
    return Z


class EUFS(BaseSelector):
    """Embedded Unsupervised Feature Selection (EUFS).

    Embeds feature selection in a clustering model: X is factorised as ``U V^T`` with
    U a relaxed, non-negative, orthonormal cluster indicator smoothed on a k-NN graph
    and V the feature loadings, whose row sparsity selects the features; solved by
    ADMM (Wang, Tang and Liu, AAAI 2015 [1]_). Features are ranked by the row norms
    of V.

    Sparse input is densified (the ADMM variables are dense n x d matrices) and
    refused above ``max_dense_bytes`` (:func:`ufsel.set_config`).

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of columns of U (clusters).
    alpha : float, default=1.0
        Weight of ``||V||_{2,1}``.
    beta : float, default=1.0
        Weight of the graph term.
    n_neighbors : int, default=5
        Number of nearest neighbours of each sample in the k-NN graph (the sample
        itself excluded).
    weight : {"heat", "binary", "cosine"}, default="heat"
        Edge weights of the k-NN graph: the heat kernel, 1 (binary) or the cosine
        similarity.
    max_iter : int, default=200
        Maximum number of iterations.
    tol : float, default=1e-2
        Relative primal residual that stops the ADMM iterations. The residual
        of ``Z = U`` falls roughly like 1 / iteration (U must become a
        non-negative orthonormal, i.e. partition, matrix), so a small ``tol``
        costs many iterations for little change in the selection.
    n_inner : int, default=10
        Projected-gradient steps of the Z-block.
    random_state : int, RandomState or None, default=None
        Seeds k-means (the initial U) and the graph bandwidth sample.
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||v^j||_2``.
    U_ : ndarray of shape (n_samples, n_clusters)
    V_ : ndarray of shape (n_features, n_clusters)
    objective_ : list of float
        Objective value after each iteration (see Notes).
    residuals_ : list of (float, float)
        Relative primal residuals ``(||X - U V^T - E|| / ||X||, ||Z - U|| / ||U||)``.
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    NDFS
        Non-negative spectral clustering with l2,1-penalised regression.
    RUFS
        Robust factorisation with a local-learning regulariser.

    Notes
    -----
    **Objective**::

        min_{U, V}  ||X - U V^T||_{2,1} + alpha ||V||_{2,1} + beta Tr(U^T L U)
        s.t. U^T U = I, U >= 0

    **ADMM** with ``E = X - U V^T`` and ``Z = U``: the augmented Lagrangian
    ``||E||_{2,1} + alpha ||V||_{2,1} + beta Tr(Z^T L Z) + <Y1, X - U V^T - E>
    + <Y2, Z - U> + (mu / 2) ||X - U V^T - E||^2 + (eta mu / 2) ||Z - U||^2`` is
    minimised block by block:

    - E: row-wise shrinkage of ``X - U V^T + Y1 / mu`` at ``1 / mu``;
    - V: with ``K = X - E + Y1 / mu`` and ``U^T U = I``, row-wise shrinkage of
      ``K^T U`` at ``alpha / mu``;
    - U: ``max_{U^T U = I} Tr(U^T (K V + eta Z + Y2 / mu))``, orthogonal Procrustes
      (thin SVD);
    - Z: ``min_{Z >= 0} beta Tr(Z^T L Z) + (eta mu / 2) ||Z - U + Y2 / (eta mu)||^2``,
      by ``n_inner`` steps of accelerated projected gradient, warm-started;
    - ``Y1 += mu (X - U V^T - E)``, ``Y2 += eta mu (Z - U)``,
      ``mu = min(rho mu, mu_max)``.

    The paper's text was not available for checking (its first page names ADMM) and
    no code by the authors was found, so no equation numbers are cited; the steps are
    the exact block minimisers of the stated augmented Lagrangian. An anonymous
    MATLAB re-implementation (``eufs.m``) attaches the graph term as
    ``beta Tr(U^T L Z)``, which gives a closed-form Z-step; both splittings have the
    same feasible points and objective there. Its slips (``max`` instead of ``min``
    for mu; ``L Z`` not divided by mu) are not copied.

    **Interpretations**:

    - L is the unnormalised Laplacian of a k-NN heat-kernel graph.
    - U starts as the column-normalised k-means indicator (non-negative and
      orthonormal), V as ``X^T U``, Z = U, E = 0, multipliers 0.
    - The constraint ``Z = U`` is weighted by ``eta mu`` with ``eta = ||X||_F^2 / n``
      (the mean squared sample norm), so both constraints are on the scale of the
      data; with ``eta = 1`` the term ``K V`` dominates the U-step and U and Z agree
      only slowly.
    - ``mu0 = 1``, ``rho = 1.1``, ``mu_max = 1e8``. Iterations stop when both relative
      primal residuals ``||X - U V^T - E|| / ||X||`` and ``||Z - U|| / ||U||`` fall
      below ``tol``. ADMM is no descent method: ``objective_`` (the objective at the
      current U, V) need not decrease at every iteration.

    Each iteration costs O(n d c) plus O(nnz(L) c) per inner Z-step; no dense n x n
    matrix. The n x d updates (E, ``X - E + Y1/mu``, the residual ``X - U V^T - E`` and
    Y1) are row-separable and run over blocks of rows small enough to stay in cache:
    one pass over the n x d arrays per iteration, plus the product ``K V``.

    See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] S. Wang, J. Tang, H. Liu. Embedded unsupervised feature selection.
       AAAI 2015.

    Examples
    --------
    >>> from ufsel import EUFS
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, y, informative = make_planted_clusters(random_state=0)
    >>> EUFS(n_features_to_select=5, n_clusters=4, random_state=0).fit(X).transform(X).shape
    (200, 5)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "alpha": [Interval(Real, 0, None, closed="left")],
        "beta": [Interval(Real, 0, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "weight": [StrOptions(set(WEIGHTS))],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_inner": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    _MU0, _RHO, _MU_MAX = 1.0, 1.1, 1e8

    def __init__(self, n_features_to_select=None, *, n_clusters=5, alpha=1.0, beta=1.0,
                 n_neighbors=5, weight="heat", max_iter=200, tol=1e-2, n_inner=10,
                 random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.weight = weight
        self.max_iter = max_iter
        self.tol = tol
        self.n_inner = n_inner
        self.random_state = random_state
        self.verbose = verbose

    def _memory_terms(self, shape):
        n, d = shape.n, shape.d
        return {**super()._memory_terms(shape), **dense_copy_term(shape),
                f"the row-major {n} x {d} X and its reconstruction": 3 * n * d * 8,
                **knn_terms(densified(shape), self.n_neighbors), **embedding_term(n, self.n_clusters)}

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        c = self.n_clusters
        rng = self._start_fit(X)
        X = np.ascontiguousarray(densify(X, name), dtype=np.float64)  # rows in blocks
        Wg = self._knn_affinity(X, rng)
        L, deg = graph_laplacian(Wg, return_diag=True)
        lip = 2.0 * float(deg.max()) if deg.size else 0.0  # >= lambda_max(L)

        labels = KMeans(c, n_init=1, random_state=rng).fit(X).labels_
        U = scaled_indicator(labels, c, offset=0.0)
        if np.any(np.bincount(labels, minlength=c) == 0):  # empty cluster: complete the basis
            U = _procrustes(U + 1e-3 * rng.random((n, c)))
        V = X.T @ U
        E = np.zeros_like(X)
        Z = U.copy()
        Y1 = np.zeros_like(X)
        Y2 = np.zeros_like(U)
        mu = self._MU0
        xnorm = max(float(np.linalg.norm(X)), np.finfo(float).tiny)
        eta = xnorm**2 / n  # penalty scale of the Z = U constraint (see Notes)

        track = ObjectiveTracker(name, self.max_iter, self.tol,
                                 advice="Standardise the data or decrease alpha/beta.",
                                 verbose=self.verbose)
        self.objective_, self.residuals_ = track.values, []
        res = np.inf
        # The n x d updates are row-separable: they run over blocks of rows that stay in
        # cache, in one pass per iteration that ends this iteration (D = X - U V^T,
        # R1 = D - E, Y1 += mu R1) and begins the next (E = prox(D + Y1/mu'),
        # K = X - E + Y1/mu', K^T U accumulated), so D is never stored.
        step = max(8, _BLOCK_BYTES // (8 * max(d, 1)))
        blocks = [slice(i, min(i + step, n)) for i in range(0, n, step)]
        K = np.empty_like(X)

        def begin(b, Db, mu, KtU):
            """E and K on rows b from D = X - U V^T there (Db is overwritten); K^T U."""
            Ym = Y1[b] / mu
            Db += Ym
            norms = np.sqrt(np.einsum("ij,ij->i", Db, Db))
            scale = np.zeros_like(norms)
            np.divide(1.0 / mu, norms, out=scale, where=norms > 0)
            np.multiply(Db, np.maximum(1.0 - scale, 0.0)[:, None], out=E[b])
            Kb = K[b]
            np.subtract(X[b], E[b], out=Kb)
            Kb += Ym
            KtU += Kb.T @ U[b]

        KtU = np.zeros((d, c))
        for b in blocks:
            begin(b, X[b] - U[b] @ V.T, mu, KtU)
        for _ in range(self.max_iter):
            V = row_soft_threshold(KtU, self.alpha / mu)
            U = _procrustes(K @ V + eta * (Z + Y2 / (eta * mu)))
            Z = _nonneg_quadratic(L, U - Y2 / (eta * mu), self.beta, eta * mu, Z, self.n_inner,
                                  lip)
            mu_next = min(self._RHO * mu, self._MU_MAX)
            fit, r1 = 0.0, 0.0
            KtU = np.zeros((d, c))
            for b in blocks:
                Db = X[b] - U[b] @ V.T
                fit += float(np.sum(np.sqrt(np.einsum("ij,ij->i", Db, Db))))
                R1 = Db - E[b]
                r1 += float(np.einsum("ij,ij->", R1, R1))
                R1 *= mu
                Y1[b] += R1
                begin(b, Db, mu_next, KtU)  # the next iteration's E, K (unused after the last)
            R2 = Z - U
            Y2 += eta * mu * R2
            mu = mu_next
            # eufs_objective(X, U, V, L), from the row norms of D = X - U V^T
            obj = fit + self.alpha * l2p_norm(V) + self.beta * float(np.sum(U * (L @ U)))
            track.append(obj)
            r1 = np.sqrt(r1) / xnorm
            r2 = float(np.linalg.norm(R2)) / np.sqrt(c)  # ||U||_F = sqrt(c)
            res = max(r1, r2)
            self.residuals_.append((r1, r2))
            if res < self.tol:
                break
        else:
            warn_not_converged(name, self.max_iter, res, self.tol)
        self.n_iter_ = track.n_iter
        self.U_, self.V_ = U, V
        return np.linalg.norm(V, axis=1)
