"""Building blocks of sparsity-regularised objectives.

Row-sparsity reweighting (l2,1 and l2,p norms), Euclidean projection onto the
probability simplex, soft thresholding (the proximal map of the l1 norm), and
the positive/negative split used by multiplicative updates.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "row_norms_sq",
    "l2p_norm",
    "l2p_reweight",
    "project_simplex",
    "soft_threshold",
    "row_soft_threshold",
    "pos_neg_parts",
]


def row_norms_sq(W):
    """``||w^i||_2^2`` for each row i of W.

    Parameters
    ----------
    W : ndarray of shape (n_rows, k)
        The matrix.
    """
    return np.einsum("ij,ij->i", W, W)


def l2p_norm(W, p=1.0, eps=0.0):
    """``sum_i (||w^i||^2 + eps)^{p/2}``: the (smoothed) l2,p norm to the power p (l2,1 for p=1).

    Parameters
    ----------
    W : ndarray of shape (n_rows, k)
        The matrix.
    p : float, default=1.0
        The exponent, 0 < p <= 1 in the selectors.
    eps : float, default=0.0
        Smoothing added to each squared row norm.
    """
    return l2p_norm_from_sq(row_norms_sq(W), p, eps)


def l2p_norm_from_sq(sq, p, eps):
    """:func:`l2p_norm` from the squared row norms ``sq`` (e.g. ``diag(W W^T)``)."""
    return float(np.sum((sq + eps) ** (p / 2.0)))


def l2p_reweight(W, p=1.0, eps=2.220446049250313e-16):
    """Diagonal of the reweighting matrix of the l2,p norm (iteratively reweighted least squares).

    ``g_i = (p / 2) (||w^i||^2 + eps)^{(p - 2) / 2}``; for p = 1 this is the
    familiar ``1 / (2 sqrt(||w^i||^2 + eps))`` of the l2,1 methods (RSFS
    footnote 1, UDFS, NDFS, SPCAFS Algorithm 1). ``eps > 0`` keeps the weight
    of an all-zero row finite (the reference codes put it inside the root).

    Parameters
    ----------
    W : ndarray of shape (n_rows, k)
        The current coefficients.
    p : float, default=1.0
        The exponent, 0 < p <= 1.
    eps : float, default=machine epsilon
        Smoothing added to each squared row norm.

    Returns
    -------
    g : ndarray of shape (n_rows,)
    """
    if not 0 < p <= 2:
        raise ValueError(f"p must be in (0, 2], got p={p}.")
    if eps <= 0:
        raise ValueError(f"eps must be positive so that zero rows keep a finite weight, got {eps}.")
    return l2p_reweight_from_sq(row_norms_sq(W), p, eps)


def l2p_reweight_from_sq(sq, p, eps):
    """:func:`l2p_reweight` from the squared row norms ``sq`` (arguments not checked)."""
    return (p / 2.0) * (sq + eps) ** ((p - 2.0) / 2.0)


def project_simplex(V, s=1.0):
    """Euclidean projection of each row of V onto ``{x : x >= 0, sum x = s}``.

    ``argmin_x ||x - v||^2`` s.t. the simplex constraint, by the sort-based
    algorithm (Held et al. 1974; Duchi et al. 2008), vectorised over rows.

    Parameters
    ----------
    V : ndarray of shape (n,) or (m, n)
    s : float > 0

    Returns
    -------
    X : ndarray of the same shape
    """
    V = np.asarray(V, dtype=np.float64)
    one = V.ndim == 1
    V2 = np.atleast_2d(V)
    n = V2.shape[1]
    U = -np.sort(-V2, axis=1)
    css = np.cumsum(U, axis=1) - s
    idx = np.arange(1, n + 1)
    cond = U - css / idx > 0
    rho = n - 1 - np.argmax(cond[:, ::-1], axis=1)  # last index where cond holds
    theta = css[np.arange(V2.shape[0]), rho] / (rho + 1)
    X = np.maximum(V2 - theta[:, None], 0.0)
    return X[0] if one else X


def soft_threshold(E, tau):
    """``sign(E) * max(|E| - tau, 0)``, the minimiser of ``||Z - E||^2 / 2 + tau ||Z||_1``.

    Parameters
    ----------
    E : {ndarray, dask array}
        The input.
    tau : float
        The threshold, non-negative.
    """
    # E - clip(E, -tau, tau) rounds as sign(E) max(|E| - tau, 0) does, in two passes
    Z = np.clip(E, -tau, tau)
    if not isinstance(Z, np.ndarray):  # a dask array: no out=
        return E - Z
    return np.subtract(E, Z, out=Z)


def row_soft_threshold(E, tau):
    """Row-wise (group) soft thresholding, the proximal map of the l2,1 norm.

    ``argmin_Z ||Z - E||_F^2 / 2 + tau ||Z||_{2,1}``: each row ``e^i`` becomes
    ``max(1 - tau / ||e^i||, 0) e^i`` (a zero row stays zero).

    Parameters
    ----------
    E : ndarray of shape (n_rows, k)
        The input.
    tau : float
        The threshold, non-negative.
    """
    E = np.asarray(E, dtype=np.float64)
    norms = np.sqrt(row_norms_sq(E))
    scale = np.zeros_like(norms)
    np.divide(tau, norms, out=scale, where=norms > 0)
    return E * np.maximum(1.0 - scale, 0.0)[:, None]


def pos_neg_parts(A):
    """``(A+, A-)`` with ``A = A+ - A-``, both non-negative: ``A+ = (|A| + A)/2``, ``A- = (|A| - A)/2``.

    Works for dense arrays and scipy.sparse matrices (entrywise).

    Parameters
    ----------
    A : {ndarray, sparse matrix}
        The matrix to split.
    """
    absA = abs(A)
    return (absA + A) / 2.0, (absA - A) / 2.0
