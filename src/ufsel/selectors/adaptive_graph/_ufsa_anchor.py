"""UFSA's anchor form: an adaptive bipartite graph between the samples and m anchors.

Objective (7) of UFSA with the sample-sample graph replaced by a sample-anchor
graph S (n x m, rows on the simplex); every step costs O(n) (see the Notes of
:class:`ufsel.UFSA` and ``benchmarks/studies/ufsa_anchor_design.md``).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg, sparse
from scipy.spatial import cKDTree
from sklearn.utils import check_random_state

from ..._iterate import ObjectiveTracker
from ...base import BaseSelector
from ...graph import anchor_landmarks, can_weights
from ...graph._memory import anchor_terms
from ...linalg import l2p_norm, l2p_reweight, polar_factor, project_simplex, stiefel_quadratic
from ...utils._memory import _F8
from ._ufsa_wstep import record_fit

__all__ = ["ufsa_anchor_objective", "anchor_s_step", "fit_anchor", "anchor_memory_terms"]

#: Rows per block of the distances to the anchors (a block's distances stay in cache).
_BLOCK_ROWS = 2048
#: Candidates beyond the t nearest kept by the single-precision screening.
_SCREEN_MARGIN = 4
#: A k-d tree over the projected anchors up to this many coordinates, blocks of
#: distances above.
_KD_TREE_MAX_DIM = 8


def _row_dot(A, B):
    return np.einsum("ij,ij->i", A, B)


def _nearest(P, Q, t):
    """For each row of P, its t nearest rows of Q: ``(squared distances, indices)``, both
    (n, t), ascending, computed from differences, equal distances ordered by index.

    A k-d tree in few dimensions; above, the candidates are screened by single-precision
    distances (the t + 4 nearest), then ranked by their exact distances."""
    n, t = P.shape[0], min(t, Q.shape[0])
    if P.shape[1] <= _KD_TREE_MAX_DIM:
        _, ind = cKDTree(Q).query(P, k=t)
        ind = ind.reshape(n, t)
    else:
        t_screen = min(t + _SCREEN_MARGIN, Q.shape[0])
        Q32 = Q.astype(np.float32)
        qn = _row_dot(Q32, Q32)
        parts = []
        for a in range(0, n, _BLOCK_ROWS):
            Pb = np.asarray(P[a:a + _BLOCK_ROWS], dtype=np.float32)
            d2 = qn[None, :] - 2.0 * (Pb @ Q32.T)  # + ||p||^2, the same for the row
            # (a copy: a view would keep the block's whole argpartition alive)
            parts.append(np.argpartition(d2, t_screen - 1, axis=1)[:, :t_screen].copy()
                         if t_screen < Q.shape[0]
                         else np.broadcast_to(np.arange(t_screen), d2.shape).copy())
        ind = np.concatenate(parts)
    d2 = np.empty(ind.shape)
    for a in range(0, n, _BLOCK_ROWS):
        diff = P[a:a + _BLOCK_ROWS, None, :] - Q[ind[a:a + _BLOCK_ROWS]]
        d2[a:a + _BLOCK_ROWS] = np.einsum("ijk,ijk->ij", diff, diff)
    order = np.lexsort((ind, d2), axis=1)[:, :t]
    rows = np.arange(n)[:, None]
    return d2[rows, order], ind[rows, order]


def anchor_s_step(Z, V, n_neighbors, lambdas=None):
    """S-step (Eq. 19) on the bipartite graph: row i minimises
    ``sum_j ||z_i - v_j||^2 s_ij + lambda_i s_ij^2`` over the simplex.

    Parameters
    ----------
    Z : ndarray of shape (n, c)
        The projected samples ``W^T x_i``.
    V : ndarray of shape (m, c)
        The projected anchors ``W^T u_j``.
    n_neighbors : int
        k.
    lambdas : ndarray of shape (n,), optional
        None: CAN's rule (exactly k anchors per row, ``lambda_i`` returned).
        Given: the Euclidean projection of ``-q_i / (2 lambda_i)`` onto the
        simplex, on nearest-anchor candidates doubled until every support is
        smaller than the candidates (then exact over all m anchors).

    Returns
    -------
    S : scipy.sparse.csr_matrix of shape (n, m)
    lambdas : ndarray of shape (n,)
    """
    n, m = Z.shape[0], V.shape[0]
    k = min(n_neighbors, m - 1)
    if lambdas is None:
        d2, ind = _nearest(Z, V, k + 1)
        return can_weights(d2, ind, k, n_samples=m)
    t = min(m, 2 * (k + 1))
    while True:
        d2, ind = _nearest(Z, V, t)
        P = project_simplex(-d2 / (2.0 * np.maximum(lambdas, 1e-300)[:, None]))
        if t == m or np.count_nonzero(P, axis=1).max() < t:
            break
        t = min(m, 2 * t)
    S = sparse.csr_matrix((P.ravel(), (np.repeat(np.arange(n), t), ind.ravel())), shape=(n, m))
    S.eliminate_zeros()
    return S, lambdas


def ufsa_anchor_objective(X, W, b, F, anchors, S, lambdas, alpha, gamma, eps=1e-10):
    """Objective (7) of UFSA on the bipartite graph between samples and anchors::

        sum_ij ( ||W^T x_i - W^T u_j||^2 s_ij + lambda_i s_ij^2 )
        + alpha sum_i ||W^T x_i + b - f_i||^2 + gamma sum_k sqrt(||w^k||^2 + eps)

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)
    W : ndarray of shape (d, c)
    b : ndarray of shape (c,)
    F : ndarray of shape (n, c)
    anchors : ndarray of shape (m, d)
        The anchors ``u_j`` as rows.
    S : sparse matrix of shape (n, m)
    lambdas : ndarray of shape (n,) or float
    alpha, gamma, eps : float

    Returns
    -------
    value : float
    """
    Z = np.asarray(X @ W)
    V = anchors @ W
    S = sparse.csr_matrix(S)
    graph = 0.0
    for a in range(0, S.shape[0], _BLOCK_ROWS):  # by blocks: n k c differences in all
        Sb = S[a:a + _BLOCK_ROWS]
        rows = np.repeat(np.arange(Sb.shape[0]), np.diff(Sb.indptr))
        diff = Z[a:a + _BLOCK_ROWS][rows] - V[Sb.indices]
        graph += float(np.dot(Sb.data, _row_dot(diff, diff)))
    sq = np.asarray(S.multiply(S).sum(axis=1)).ravel()
    smooth = float(np.dot(np.broadcast_to(lambdas, sq.shape), sq))
    R = Z + b[None, :] - F
    return graph + smooth + alpha * float(np.sum(R * R)) + gamma * l2p_norm(W, 1.0, eps)


def anchor_memory_terms(est, shape):
    """The memory cost terms of the anchor form: the scaled copy of X, the landmarks'
    k-means, each sample's k + 1 anchors, a few n x c blocks and d x d matrices."""
    n, d, c, k = shape.n, shape.d, est.n_clusters, est.n_neighbors
    m = min(est.n_anchors, n)
    return {**BaseSelector._memory_terms(est, shape), **anchor_terms(shape, m, k + 1),
            "the scaled copy of X": n * d * _F8,
            f"the {n} x {c} projections, labels and their updates": 6 * n * c * _F8,
            f"the {n} x {k + 1 + 4} nearest anchors and weights": 4 * n * (k + 5) * _F8,
            "the distances of one block of rows to the anchors": 3 * _BLOCK_ROWS * m * _F8,
            f"a {d} x {d} W-step matrix and its eigenvectors": 6 * d * d * _F8}


def graph_matrix(XtX, anchors, S, StX):
    """``sum_ij s_ij (x_i - u_j)(x_i - u_j)^T`` (d x d) for rows of S on the simplex:
    ``X^T X + U^T diag(S^T 1) U - X^T S U - U^T S^T X``."""
    dc = np.asarray(S.sum(axis=0)).ravel()
    cross = StX.T @ anchors
    M = XtX + anchors.T @ (dc[:, None] * anchors) - cross - cross.T
    return 0.5 * (M + M.T)


def fit_anchor(est, X):
    """UFSA's iterations on the bipartite anchor graph; sets ``est``'s attributes and
    returns the scores."""
    n, d = X.shape
    c, k = est.n_clusters, est.n_neighbors
    alpha, gamma, eps = est.alpha, est.gamma, est.eps
    rng = check_random_state(est.random_state)
    X, keep, scale = est._prepare(X)
    if sparse.issparse(X):
        X = sparse.csr_matrix(X, dtype=np.float64)
    else:
        X = np.asarray(X, dtype=np.float64)
    anchors, _ = anchor_landmarks(X, est.n_anchors, k + 1, random_state=rng)
    m = anchors.shape[0]
    if m < k + 2:
        raise ValueError(
            f"UFSA's anchor graph needs n_anchors >= n_neighbors + 2 = {k + 2}, got {m} "
            f"anchors. Pass a larger n_anchors or a smaller n_neighbors.")
    XtX = np.asarray((X.T @ X).todense()) if sparse.issparse(X) else X.T @ X
    mu = np.asarray(X.mean(axis=0)).ravel()
    XtHX = XtX - n * np.outer(mu, mu)

    # Initialisation: S by CAN on each sample's k + 1 nearest anchors in X, F at random,
    # W the polar factor of X^T H F (as in the paper form).
    Xd = X.toarray() if sparse.issparse(X) else X  # (anchor form of sparse X: dense rows)
    d2, ind = _nearest(Xd, anchors, k + 1)
    S, _ = can_weights(d2, ind, k, n_samples=m)
    F = rng.uniform(0.0, 1.0, size=(n, c))

    def xthf(F):
        return np.asarray(X.T @ F) - np.outer(mu, F.sum(axis=0))

    W = polar_factor(xthf(F))
    lambdas = None
    adaptive = est.lambda_update == "adaptive"
    track = ObjectiveTracker("UFSA", est.max_iter, est.tol, verbose=est.verbose,
                             advice=f"Rescale the data or reduce alpha (got {alpha:g}) / "
                                    f"gamma (got {gamma:g}).")
    w_converged, w_steps = [], []
    first = True
    for _ in range(est.max_iter):
        # W-step, under W^T W = I (b eliminated; l2,1 majorised at the current W)
        g = l2p_reweight(W, 1.0, eps)
        StX = np.asarray(S.T @ X)
        if sparse.issparse(StX):
            StX = StX.toarray()
        A = graph_matrix(XtX, anchors, S, StX) + alpha * XtHX
        A[np.diag_indices_from(A)] += gamma * g
        B = alpha * xthf(F)
        lam, Q = linalg.eigh(A)
        if first:  # as the paper form's first W-step: in A's c smallest eigenvectors
            W = Q[:, :c] @ polar_factor(Q[:, :c].T @ B)
            first = False
        W, history, ok = stiefel_quadratic(A, B, W, method="trust_region",
                                           max_iter=est.w_max_iter, gtol=est.w_tol,
                                           return_converged=True, eig=(lam, Q))
        w_converged.append(ok)
        w_steps.append(len(history) - 1)
        # b-step (Eq. 9), F-step (Eq. 16)
        Z = np.asarray(X @ W)
        b = (F - Z).mean(axis=0)
        F = np.clip(Z + b[None, :], 0.0, 1.0)
        # S-step on the projected anchors
        S, lambdas = anchor_s_step(Z, anchors @ W, k, None if adaptive else lambdas)
        obj = ufsa_anchor_objective(X, W, b, F, anchors, S, lambdas, alpha, gamma, eps)
        if track.append(obj):
            break
    objective = track.finish()
    W_full = record_fit(est, W, keep, d, objective, w_converged, w_steps)
    anchors_full = np.zeros((m, d))
    anchors_full[:, keep] = anchors
    est.intercept_ = b
    est.labels_matrix_ = F
    est.similarity_ = S
    est.anchors_ = anchors_full
    est.lambdas_ = lambdas
    est.feature_scale_ = scale
    est.solver_ = "dense"
    est.s_step_ = "anchor"
    return np.sqrt(np.einsum("ij,ij->i", W_full, W_full))
