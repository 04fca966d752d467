"""Cluster-indicator initialisations of the non-negative spectral methods (NDFS, RUFS)."""

from __future__ import annotations

import numpy as np
from scipy import linalg, sparse
from sklearn.cluster import KMeans

__all__ = ["scaled_indicator", "kmeans_indicator"]


def scaled_indicator(labels, n_clusters, *, offset=0.2):
    """``Y (Y^T Y)^{-1/2} + offset * mean`` for a label vector (the scaled cluster indicator).

    ``Y`` is the n x c 0/1 indicator; ``Y (Y^T Y)^{-1/2}`` has orthonormal
    columns (empty clusters give zero columns). Multiplicative updates can
    never move an entry away from 0, so a positive offset (``offset`` times
    the mean non-zero entry) is added, as the NDFS and RUFS reference codes
    do (+0.2); ITMO_FS's NDFS omits it and freezes F.

    Parameters
    ----------
    labels : ndarray of shape (n_samples,)
        Cluster labels in ``0 .. n_clusters - 1``.
    n_clusters : int
        c, the number of columns.
    offset : float, default=0.2
        Added to every entry, times the mean non-zero entry.
    """
    n = labels.shape[0]
    Y = np.zeros((n, n_clusters))
    Y[np.arange(n), labels] = 1.0
    counts = Y.sum(axis=0)
    scale = np.zeros_like(counts)
    np.divide(1.0, np.sqrt(counts), out=scale, where=counts > 0)
    F = Y * scale
    if offset > 0:
        F += offset * F[F > 0].mean()
    return F


def kmeans_indicator(Z, n_clusters, *, random_state, n_init=10, offset=0.2, init="k-means++",
                     algorithm="lloyd"):
    """k-means on the rows of Z (seeded), returned as :func:`scaled_indicator`.

    ``init="random"`` starts each of the ``n_init`` runs from randomly chosen
    rows, as ``litekmeans``' default ``'sample'`` start does.

    A dense Z with more columns than rows (d > n), where the Lloyd steps
    saved outweigh forming it, is clustered through an n x n factor C with ``C C^T = Z Z^T``: the Cholesky factor of the Gram
    matrix, or, when that is not numerically positive definite (duplicate
    rows, rank below n), ``R^T`` from the QR decomposition of ``Z^T``.
    k-means uses only distances between points and centroids that are means
    of points, and the rows of C have the same ones, so the clustering is the
    same up to rounding at n / d of the cost per Lloyd step. Rounding matters
    only at exact ties, which integer-valued data can have in a first
    assignment (a point exactly as far from two starting rows): the
    d-dimensional computation resolves them exactly, to the lower cluster
    index, and the factor by its rounding, so on such data a start can end
    in a different partition (``benchmarks/speed/bench_kmeans_factor.py`` compares
    the labels with scikit-learn's on Z itself).
    scikit-learn's ``tol`` is relative to the mean per-column variance,
    total / d here and total / n for the factor, so it is scaled by n / d: the
    absolute tolerance is unchanged.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, k)
        The points to cluster (usually a spectral embedding).
    n_clusters : int
        c, the number of clusters.
    random_state : int, RandomState or None
        Seeds k-means.
    n_init : int, default=10
        Number of k-means runs; the one of lowest inertia is kept.
    offset : float, default=0.2
        See :func:`scaled_indicator`.
    init : {"k-means++", "random"}, default="k-means++"
        The start of each run, as :class:`sklearn.cluster.KMeans`.
    algorithm : {"lloyd", "elkan"}, default="lloyd"
        As :class:`sklearn.cluster.KMeans`: Elkan's variant computes the same
        Lloyd iterations, skipping distances that the triangle inequality rules
        out (faster with many clusters in moderate dimension).
    """
    tol = 1e-4  # scikit-learn's default
    n, d = Z.shape
    # Lloyd: about 2 n c d flops per step, some 10 steps per run; the factor: n^2 d once
    # (the Gram matrix). Worth it where the steps save more than that (d well above n,
    # many clusters).
    if not sparse.issparse(Z) and 20 * n_init * n_clusters * (d - n) > n * d:
        Z = np.asarray(Z, dtype=np.float64)
        try:
            Z = linalg.cholesky(Z @ Z.T, lower=True, check_finite=False)
        except linalg.LinAlgError:
            Z = linalg.qr(Z.T, mode="r", check_finite=False)[0][:n].T
        tol *= n / d
    km = KMeans(n_clusters=n_clusters, init=init, n_init=n_init, tol=tol,
                random_state=random_state, algorithm=algorithm).fit(Z)
    return scaled_indicator(km.labels_, n_clusters, offset=offset)
