"""LGDFS's steps shared by its paper form and its anchor form: the local regressions
(Eq. 12) and the z-step (Eq. 14)."""

from __future__ import annotations

import numpy as np

from ...base import NumericalError
from ...graph import (
    local_centered_kernels,
    local_discriminative_laplacian,
    row_chunks,
    scatter_local_blocks,
)

__all__ = ["lgdfs_z_step", "local_regression_norms"]


def local_regression_norms(X, Y, z, regions, lambda_local, *, local_blocks=None,
                           region_weights=None):
    """The local regressions of Eq. (12): ``sum_i w_i lambda_i ||(W_i)_j||^2`` and their fit.

    The local half of :func:`lgdfs_regression_norms` (see there for the two ways
    it is computed); ``region_weights`` (``w_i``, default all one) weighs each
    region's regression, as LGDFS's anchor form weighs each anchor's region by
    the number of samples it stands for.

    Parameters
    ----------
    X : ndarray of shape (n_points, n_features)
        The points the regions are drawn from.
    Y : ndarray of shape (n_points, n_clusters)
    z : ndarray of shape (n_features,)
    regions : ndarray of shape (n_points, k)
    lambda_local : float
    local_blocks : ndarray of shape (n_points, k, k), optional
        The blocks ``L_i`` of :func:`ufsel.graph.local_discriminative_laplacian`
        (computed if None and needed).
    region_weights : ndarray of shape (n_points,), optional
        ``w_i``.

    Returns
    -------
    wbar_sq : ndarray of shape (n_features,)
        ``sum_i w_i lambda_i ||(W_i)_j||^2``.
    fit : float
        ``sum_i w_i lambda_i^2 ||R_i||^2``, ``R_i = (lambda_i I + K_i)^{-1} H_i Y_i``.
    """
    n, k = regions.shape
    d, c = X.shape[1], Y.shape[1]
    sqz = np.sqrt(z)
    lam_l = lambda_local
    if c > k:
        if local_blocks is None:
            _, local_blocks = local_discriminative_laplacian(X * sqz, regions, lam_l,
                                                             return_blocks=True)
        R = np.matmul(local_blocks, Y[regions]) / lam_l  # (n, k, c), columns centred
        if region_weights is not None:
            R *= np.sqrt(region_weights)[:, None, None]
        P = np.matmul(R, R.transpose(0, 2, 1))  # R_i R_i^T, (n, k, k)
        M = scatter_local_blocks(P, regions)
        Xc = X - X.mean(axis=0)
        wbar_sq = lam_l * z**2 * np.einsum("nd,nd->d", Xc, M @ Xc)
        fit = lam_l**2 * float(np.sum(R * R))
    else:  # region by region: O(n k d c) is at most the cost of the sparse form
        Xz = X * sqz
        acc = np.zeros(d)
        fit = 0.0
        eye = np.eye(k)
        for sl in row_chunks(n, k, d):
            G, K = local_centered_kernels(Xz, regions, sl)  # G_i = H_i X_i^T diag(sqrt z)
            Yi = Y[regions[sl]]
            Yi = Yi - Yi.mean(axis=1, keepdims=True)
            K += lam_l * eye
            R = np.linalg.solve(K, Yi)  # (m, k, c)
            T = np.matmul(G.transpose(0, 2, 1), R)  # diag(sqrt z) X_i H_i R_i, (m, d, c)
            if region_weights is None:
                acc += np.einsum("mdc,mdc->d", T, T)
                fit += float(np.sum(R * R))
            else:
                w = region_weights[sl]
                acc += np.einsum("m,mdc,mdc->d", w, T, T)
                fit += float(np.einsum("m,mkc,mkc->", w, R, R))
        wbar_sq = lam_l * z * acc
        fit *= lam_l**2
    return wbar_sq, fit


def lgdfs_z_step(wbar_sq):
    """z-step, Eq. (14): ``z_j = ||W_bar_j|| / sum_j' ||W_bar_j'||`` (on the simplex).

    The exact minimiser over the simplex of ``sum_j ||W_bar_j||^2 / z_j``.
    """
    norms = np.sqrt(np.maximum(wbar_sq, 0.0))
    total = norms.sum()
    if not np.isfinite(total) or total <= 0:
        raise NumericalError(
            "LGDFS: all regression coefficients vanished or became non-finite, so the feature "
            "weights z are undefined. Lower lambda_global / lambda_local or standardise the "
            "features."
        )
    return norms / total
