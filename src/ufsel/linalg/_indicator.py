"""Cluster-indicator initialisations of the non-negative spectral methods (NDFS, RUFS, RSFS).

Labels and indicators of a dask embedding stay dask arrays chunked like it: k-means
runs on a seeded row sample, every row is assigned to its nearest centre block by
block, and the indicator's column scales come from the cluster sizes.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg, sparse
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

from ..utils import import_optional, is_dask_array

__all__ = ["KMEANS_SAMPLE_ROWS", "indicator_blocks", "kmeans_indicator", "kmeans_labels",
           "label_counts", "scaled_indicator"]

#: The anchor-graph initialisations (and every dask one) run k-means on at most this many
#: rows of the embedding, then assign each row to its nearest centre.
KMEANS_SAMPLE_ROWS = 100_000


def kmeans_labels(Y, n_clusters, *, random_state, sample_rows=None, **params):
    """k-means labels of the rows of Y, on all of them or on a seeded row sample.

    With at most ``sample_rows`` rows (or ``sample_rows=None``) this is
    ``KMeans(n_clusters, random_state=random_state, **params).fit(Y).labels_``.
    Above, k-means runs on ``sample_rows`` rows drawn without replacement (seeded
    by ``random_state``) and every row gets the label of its nearest centre
    (``KMeans.predict``), block by block for a dask Y; the same data and seed
    give the same labels in memory and on dask.

    Parameters
    ----------
    Y : {ndarray, dask array} of shape (n_samples, k)
        The points (a spectral embedding).
    n_clusters : int
        Number of clusters.
    random_state : int, RandomState or None
        Seeds the sample and k-means.
    sample_rows : int or None, default=None
        Most rows k-means runs on; None: all (Y in memory). A dask Y needs it.
    **params : dict
        Further :class:`sklearn.cluster.KMeans` parameters (``n_init``, ``init``, ...).

    Returns
    -------
    labels : ndarray or dask array of shape (n_samples,)
        A dask array chunked like Y's rows for a dask Y.
    """
    n = Y.shape[0]
    dask_y = is_dask_array(Y)
    if sample_rows is None:
        if dask_y:
            raise ValueError("kmeans_labels of a dask array needs sample_rows.")
        sample_rows = n
    if n <= sample_rows:
        S = np.asarray(Y.compute() if dask_y else Y)
        labels = KMeans(n_clusters, random_state=random_state, **params).fit(S).labels_
        if dask_y:
            da = import_optional("dask.array", purpose="k-means of a dask array")
            return da.from_array(labels, chunks=(Y.chunks[0],))
        return labels
    rng = check_random_state(random_state)
    idx = np.sort(rng.choice(n, sample_rows, replace=False))
    S = np.asarray(Y[idx].compute() if dask_y else Y[idx])
    km = KMeans(n_clusters, random_state=rng, **params).fit(S)
    if dask_y:
        return Y.map_blocks(km.predict, drop_axis=1, dtype=km.labels_.dtype)
    return km.predict(Y)


def label_counts(labels, n_clusters):
    """Cluster sizes (ndarray of shape (n_clusters,)) of a label vector, in memory or dask.

    Parameters
    ----------
    labels : {ndarray, dask array} of shape (n_samples,)
        Labels in ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of clusters.
    """
    if is_dask_array(labels):
        da = import_optional("dask.array", purpose="k-means of a dask array")
        return np.asarray(da.bincount(labels, minlength=n_clusters).compute())
    return np.bincount(labels, minlength=n_clusters)


def indicator_blocks(labels, n_clusters, scale, offset):
    """``onehot(labels) * scale + offset``, row block by row block for dask labels.

    Parameters
    ----------
    labels : {ndarray, dask array} of shape (n_samples,)
        Labels in ``0 .. n_clusters - 1``.
    n_clusters : int
        Number of columns.
    scale, offset : ndarray of shape (n_clusters,)
        Per-column factor of the 0/1 indicator, and the value added to every entry.

    Returns
    -------
    F : {ndarray, dask array} of shape (n_samples, n_clusters)
        A dask array chunked like ``labels`` for dask labels.
    """
    def block(lb):
        F = np.zeros((lb.shape[0], n_clusters))
        F[np.arange(lb.shape[0]), lb] = 1.0
        return F * scale + offset

    if is_dask_array(labels):
        return labels.map_blocks(block, new_axis=1, chunks=(labels.chunks[0], (n_clusters,)),
                                 dtype=np.float64)
    return block(labels)


def scaled_indicator(labels, n_clusters, *, offset=0.2):
    """``Y (Y^T Y)^{-1/2} + offset * mean`` for a label vector (the scaled cluster indicator).

    ``Y`` is the n x c 0/1 indicator; ``Y (Y^T Y)^{-1/2}`` has orthonormal
    columns (empty clusters give zero columns). Multiplicative updates can
    never move an entry away from 0, so a positive offset (``offset`` times
    the mean non-zero entry) is added, as the NDFS and RUFS reference codes
    do (+0.2); ITMO_FS's NDFS omits it and freezes F.

    Parameters
    ----------
    labels : {ndarray, dask array} of shape (n_samples,)
        Cluster labels in ``0 .. n_clusters - 1`` (dask labels give a dask F chunked
        like them).
    n_clusters : int
        c, the number of columns.
    offset : float, default=0.2
        Added to every entry, times the mean non-zero entry.
    """
    if is_dask_array(labels):  # the same, from the cluster sizes, block by block
        counts = label_counts(labels, n_clusters)
        scale = np.zeros(n_clusters)
        np.divide(1.0, np.sqrt(counts), out=scale, where=counts > 0)
        mean = float(np.sum(counts * scale)) / labels.shape[0]
        return indicator_blocks(labels, n_clusters, scale, np.full(n_clusters, offset * mean))
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
                     algorithm="lloyd", sample_rows=None):
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
    sample_rows : int or None, default=None
        Above this many rows, k-means runs on a seeded sample of them and every
        row takes its nearest centre's label (:func:`kmeans_labels`; a dask Z
        needs it and gives a dask F); None: all rows.
    """
    tol = 1e-4  # scikit-learn's default
    n, d = Z.shape
    if is_dask_array(Z) or (sample_rows is not None and n > sample_rows):
        labels = kmeans_labels(Z, n_clusters, random_state=random_state,
                               sample_rows=sample_rows, init=init, n_init=n_init, tol=tol,
                               algorithm=algorithm)
        return scaled_indicator(labels, n_clusters, offset=offset)
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
