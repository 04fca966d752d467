"""LGDFS's anchor form: the embedding on an anchor graph, the local regressions on anchors.

Every n-sample quantity of LGDFS (Eqs. 5-14) is reduced, once, to m x m, m x d and
d x d matrices through the anchor graph ``Z`` (n x m, rows on the simplex, see
:func:`ufsel.graph.anchor_graph`); the iterations then cost nothing in n. See the
Notes of :class:`ufsel.LGDFS` for what is exact and what is approximated.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg, sparse
from sklearn.utils import check_random_state

from ...graph import (
    anchor_graph,
    local_discriminative_laplacian,
    local_regions,
    weighted_knn_graph,
)
from ._lgdfs_steps import lgdfs_z_step, local_regression_norms

__all__ = ["AnchorLGDFS", "lgdfs_anchor_objective"]

#: The local regions are those of this many sampled rows per anchor.
ROWS_PER_ANCHOR = 2
#: Rows per block of the one pass that forms ``X^T X``.
_BLOCK_ROWS = 16384


class AnchorLGDFS:
    """The reductions of X through an anchor graph that LGDFS's anchor form needs.

    Parameters
    ----------
    landmarks : ndarray of shape (m, d)
        The anchors ``u_j``.
    ZtZ : ndarray of shape (m, m)
        ``Z^T Z``.
    anchor_degree : ndarray of shape (m,)
        ``Lambda = Z^T 1`` (positive): how many samples each anchor stands for.
    XtHZ : ndarray of shape (d, m)
        ``X^T H Z``, H the n x n centring matrix.
    XtHX : ndarray of shape (d, d)
        ``X^T H X``.
    n_samples : int
    Z : sparse matrix of shape (n, m), optional
        For the embedding ``Y = Z C``.
    """

    def __init__(self, landmarks, ZtZ, anchor_degree, XtHZ, XtHX, n_samples, points, Z_points,
                 Z=None):
        self.landmarks, self.ZtZ, self.anchor_degree = landmarks, ZtZ, anchor_degree
        self.XtHZ, self.XtHX, self.n_samples, self.Z = XtHZ, XtHX, n_samples, Z
        self.points, self.Z_points = points, sparse.csr_matrix(Z_points)
        # each sampled row's region stands for n / r samples' regions
        self.region_weight = n_samples / points.shape[0]
        # (HZ)^T (HZ), the Gram of the embedding's coefficients: Y^T Y = C^T B C
        self.gram = ZtZ - np.outer(anchor_degree, anchor_degree) / n_samples

    @classmethod
    def from_data(cls, X, n_anchors, n_nearest, random_state=None):
        """Build from the anchor graph of X (:func:`ufsel.graph.anchor_graph`), one
        blockwise pass for ``X^T X`` and a seeded sample of ``ROWS_PER_ANCHOR * m`` rows
        for the local regions; anchors no sample is attached to are dropped."""
        rng = check_random_state(random_state)
        g = anchor_graph(X, n_anchors, n_nearest, random_state=rng)
        n, d = X.shape
        keep = g.anchor_degree > 0
        lam = g.anchor_degree[keep]
        XtX = np.zeros((d, d))
        for a in range(0, n, _BLOCK_ROWS):
            Xb = np.asarray(X[a:a + _BLOCK_ROWS], dtype=np.float64)
            XtX += Xb.T @ Xb
        mean = g.col_sum / n
        XtHX = XtX - n * np.outer(mean, mean)
        XtHZ = (g.ZtX[keep] - lam[:, None] * mean[None, :]).T
        Z = g.Z[:, keep]
        r = min(n, ROWS_PER_ANCHOR * int(keep.sum()))
        rows = np.sort(rng.choice(n, r, replace=False)) if r < n else np.arange(n)
        return cls(g.landmarks[keep], g.ZtZ[np.ix_(keep, keep)], lam, XtHZ,
                   0.5 * (XtHX + XtHX.T), n, np.asarray(X[rows], dtype=np.float64), Z[rows],
                   Z=Z)

    @classmethod
    def identity(cls, X):
        """Every sample its own anchor (``Z = I``): the anchor form is then LGDFS's paper
        form exactly (for tests)."""
        n = X.shape[0]
        Xc = X - X.mean(axis=0)
        X = np.asarray(X, dtype=np.float64)
        return cls(X, np.eye(n), np.ones(n), Xc.T.copy(), Xc.T @ Xc, n, X, sparse.eye(n))

    def regions(self, z, n_neighbors):
        """Each sampled row and its nearest sampled rows in the z-weighted distance
        (Eq. 10)."""
        k = min(n_neighbors, self.points.shape[0] - 1)
        _, ind = weighted_knn_graph(self.points, k, z, algorithm="exact")
        return local_regions(ind)

    def local_laplacian(self, z, regions, lam_l):
        """The local term on the coefficients, ``(n / r) Z_r^T L_r Z_r`` (m x m, dense),
        ``L_r = sum_i S_i L_i S_i^T`` the local Laplacian (Eqs. 6-7) of the r sampled
        rows' regions, and its blocks ``L_i``."""
        L_r, blocks = local_discriminative_laplacian(self.points * np.sqrt(z), regions, lam_l,
                                                     return_blocks=True)
        Zr = self.Z_points
        M = np.asarray((Zr.T @ (L_r @ Zr)).todense()) * self.region_weight
        return 0.5 * (M + M.T), blocks

    def global_parts(self, z, lam_g):
        """The global term on the coefficients, ``C^T M_g C = Y^T L_g Y`` for ``Y = Z C``
        (Eq. 5 by the Woodbury identity), and the pieces of its regression:
        ``M_g = (HZ)^T HZ - Q^T (lam I + G)^{-1} Q`` with ``Q = diag(sqrt z) X^T H Z`` and
        ``G = diag(sqrt z) X^T H X diag(sqrt z)``."""
        sqz = np.sqrt(z)
        G = sqz[:, None] * self.XtHX * sqz[None, :]
        Q = sqz[:, None] * self.XtHZ
        factor = linalg.cho_factor(G + lam_g * np.eye(G.shape[0]))
        M = self.gram - Q.T @ linalg.cho_solve(factor, Q)
        return 0.5 * (M + M.T), (G, Q, factor)

    def embedding(self, M, n_clusters):
        """Y-step (Eq. 11) in the span of Z: the c smallest generalized eigenvectors of
        ``(M, Z^T Z)`` ``Z^T 1``-orthogonal to the constant (``Y^T Y = I``, ``Y^T 1 = 0``)."""
        m = M.shape[0]
        # an orthonormal basis of {C : Lambda^T C = 0}, i.e. 1^T Z C = 0
        N = linalg.qr(self.anchor_degree[:, None], mode="full")[0][:, 1:]
        A = N.T @ M @ N
        B = N.T @ self.ZtZ @ N
        B = 0.5 * (B + B.T)
        B += np.trace(B) / m * 1e-12 * np.eye(m - 1)  # anchors sharing all their samples
        w, V = linalg.eigh(0.5 * (A + A.T), B, subset_by_index=[0, n_clusters - 1])
        C = N @ V
        # sign: largest-magnitude coefficient positive, so the result does not depend on LAPACK
        big = np.argmax(np.abs(C), axis=0)
        C *= np.sign(C[big, np.arange(C.shape[1])])
        return C, w

    def global_regression_norms(self, C, z, lam_g, parts):
        """The global regression of Eq. (12) at ``Y = Z C``: ``lambda ||W_j||^2`` and
        ``lambda^2 ||R||^2`` (as in :func:`lgdfs_regression_norms`), from d x m products."""
        G, Q, factor = parts
        T0 = Q @ C  # A^T H Y
        E = linalg.cho_solve(factor, T0)  # A^T R, R = (lam I + A A^T)^{-1} H Y
        wbar_sq = lam_g * z * np.einsum("dc,dc->d", E, E)
        R2 = (np.sum(C * (self.gram @ C)) - 2.0 * np.sum(T0 * E) + np.sum(E * (G @ E))) / lam_g**2
        return wbar_sq, lam_g**2 * max(float(R2), 0.0)

    def sample_embedding(self, C):
        """``Y`` on the sampled rows, ``Z_r C``."""
        return np.asarray(self.Z_points @ C)

    def embed(self, C):
        """``Y = Z C``."""
        return np.asarray(self.Z @ C)


def lgdfs_anchor_objective(problem, C, z, regions, alpha, lambda_global, lambda_local):
    """LGDFS's Eq. (8) in the anchor form: ``tr(C^T L_a C) + alpha tr(Y^T L_g Y)``, ``Y = Z C``.

    ``L_a = sum_j Lambda_j S_j L_j S_j^T`` is the local Laplacian of the anchors'
    regions, each weighted by its degree; the global term is exact for ``Y = Z C``.
    With every sample its own anchor (:meth:`AnchorLGDFS.identity`) this is
    :func:`lgdfs_objective`.

    Parameters
    ----------
    problem : AnchorLGDFS
    C : ndarray of shape (m, n_clusters)
        The embedding's anchor coefficients.
    z : ndarray of shape (n_features,)
    regions : ndarray of shape (m, k)
        The anchors' regions (:meth:`AnchorLGDFS.regions`).
    alpha, lambda_global, lambda_local : float

    Returns
    -------
    value : float
    """
    L_a, _ = problem.local_laplacian(z, regions, lambda_local)
    M_g, _ = problem.global_parts(z, lambda_global)
    return float(np.sum(C * (L_a @ C)) + alpha * np.sum(C * (M_g @ C)))


def fit_anchor(X, *, n_clusters, alpha, lambda_global, lambda_local, n_neighbors, n_anchors,
               max_iter, tracker, random_state, problem=None):
    """Algorithm 1 of LGDFS in the anchor form; returns ``(z, Y)`` (see LGDFS's Notes)."""

    if problem is None:
        problem = AnchorLGDFS.from_data(X, n_anchors, n_neighbors, random_state=random_state)
    d = problem.XtHX.shape[0]
    z = np.full(d, 1.0 / d)
    C = None
    for _ in range(max_iter):
        regions = problem.regions(z, n_neighbors)
        L_a, blocks = problem.local_laplacian(z, regions, lambda_local)
        M_g, parts = problem.global_parts(z, lambda_global)
        C, _ = problem.embedding(L_a + alpha * M_g, n_clusters)
        wbar_sq, fit = local_regression_norms(problem.points, problem.sample_embedding(C), z,
                                              regions, lambda_local, local_blocks=blocks)
        wbar_sq *= problem.region_weight
        fit *= problem.region_weight
        g_sq, g_fit = problem.global_regression_norms(C, z, lambda_global, parts)
        wbar_sq = wbar_sq + alpha * g_sq
        fit += alpha * g_fit
        z = lgdfs_z_step(wbar_sq)
        if tracker.append(fit + float(np.sqrt(np.maximum(wbar_sq, 0.0)).sum()) ** 2):
            break
    Y = problem.embed(C) if problem.Z is not None else C
    return z, Y, C
