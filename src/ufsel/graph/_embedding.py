"""The neighbour graph as single-cell practice builds it: k-NN on a PCA embedding.

Wide, noisy data (a count matrix of thousands of genes, most of them noise) give a poor
neighbour graph when the distances are taken over every feature. Single-cell practice
(scanpy's ``pp.pca`` then ``pp.neighbors``) first reduces the samples to a few tens of
principal components, optionally of a preselected set of high-variance features, and
builds the k-NN graph there. :func:`pca_embedding` is that reduction,
:func:`pca_knn_affinity` the graph; the graph-based selectors take it with
``graph="pca"``.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.decomposition import PCA
from sklearn.utils import check_random_state

from ..linalg import column_mean_var
from ..utils import is_dask_array

__all__ = ["PCA_COMPONENTS", "PCA_NEIGHBORS", "pca_embedding", "pca_knn_affinity"]

#: Principal components of :func:`pca_embedding` (scanpy's ``pp.pca`` default is 50;
#: 30 is the common choice of atlas pipelines and of Hotspot's examples).
PCA_COMPONENTS = 30
#: Neighbours per sample of :func:`pca_knn_affinity` (scanpy's ``pp.neighbors`` uses 15).
PCA_NEIGHBORS = 15


def _check_positive(name, value):
    if value is not None and (not isinstance(value, Integral) or isinstance(value, bool)
                              or value < 1):
        raise ValueError(f"{name} must be a positive integer or None, got {value!r}.")


def pca_embedding(X, n_components=PCA_COMPONENTS, *, n_top_features=None, random_state=None):
    """The samples' leading principal components, sparse X never densified.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data (for counts: log-normalised, e.g. by
        :func:`ufsel.preprocessing.normalize_log1p`).
    n_components : int, default=30
        Number of components, at most n_samples. With no more features than that, the
        embedding is the centred data themselves (a rotation would not change the
        samples' distances); ARPACK takes at most ``n_samples - 1``.
    n_top_features : int or None, default=None
        Compute the PCA on the ``n_top_features`` features of largest variance only
        (scanpy's PCA on the highly variable genes); None uses every feature.
    random_state : int, RandomState or None, default=None
        Seeds ARPACK's start vector (sparse X) or the randomized solver (dense X).

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_components)
        float32 when X is float32, float64 otherwise.

    Notes
    -----
    Sparse X goes to scikit-learn's ``PCA(svd_solver="arpack")``, which centres
    implicitly: ARPACK multiplies by ``X - 1 mu^T`` as a linear operator, so neither a
    centred nor a dense copy of X is formed (memory: X plus a few n-vectors per
    component). ``svd_solver="covariance_eigh"`` also accepts sparse X but forms the
    d x d product ``X^T X``, which is slower on sparse counts. Dense X takes
    scikit-learn's ``"auto"`` choice. Each component's sign is fixed so that its
    largest-magnitude loading is positive (scikit-learn's ``svd_flip``), so the
    embedding does not depend on the solver's start vector beyond rounding.
    """
    if is_dask_array(X):
        raise ValueError("pca_embedding needs the data in memory; call X.compute() first "
                         "or use graph='anchor' on a dask array.")
    _check_positive("n_components", n_components)
    _check_positive("n_top_features", n_top_features)
    n, d = X.shape
    if n_top_features is not None and n_top_features < d:
        var = column_mean_var(X)[1]
        # stable on ties, so the chosen columns do not depend on the solver
        keep = np.sort(np.argsort(-var, kind="stable")[:n_top_features])
        X = X[:, keep]
        d = X.shape[1]
    if n_components > n:
        raise ValueError(f"n_components={n_components} must be at most n_samples={n}.")
    dtype = np.float32 if X.dtype == np.float32 else np.float64
    if d <= n_components:
        # a rotation of the centred data: the same distances, so the data themselves
        X = X.toarray() if sparse.issparse(X) else np.asarray(X)
        return (X - X.mean(axis=0, dtype=np.float64)).astype(dtype, copy=False)
    k = min(int(n_components), n - 1)
    if sparse.issparse(X):
        X = sparse.csr_matrix(X)
        solver = "arpack"
    else:
        X = np.asarray(X)
        solver = "auto"
    rng = check_random_state(random_state)
    pca = PCA(n_components=k, svd_solver=solver,
              random_state=rng.randint(np.iinfo(np.int32).max))
    E = pca.fit_transform(X)
    return E.astype(dtype, copy=False)


def pca_knn_affinity(X, n_neighbors=PCA_NEIGHBORS, *, n_components=PCA_COMPONENTS,
                     n_top_features=None, weight="binary", t="mean", symmetrize_mode="max",
                     algorithm="auto", n_jobs=None, random_state=None):
    """The k-NN affinity of the samples' PCA embedding (scanpy's ``pca`` + ``neighbors``).

    :func:`pca_embedding` then :func:`ufsel.graph.knn_affinity` on it.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data; never densified.
    n_neighbors : int, default=15
        Neighbours per sample (the sample itself excluded).
    n_components, n_top_features
        As in :func:`pca_embedding`.
    weight, t, symmetrize_mode, algorithm, n_jobs
        As in :func:`ufsel.graph.knn_affinity`; the default is the binary OR graph
        (``max(W, W^T)`` of 0/1 k-NN edges).
    random_state : int, RandomState or None, default=None
        Seeds the PCA's solver and the neighbour search.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric, no self-loops.

    Examples
    --------
    >>> from ufsel.datasets import make_planted_counts
    >>> from ufsel.graph import pca_knn_affinity
    >>> from ufsel.preprocessing import normalize_log1p
    >>> X, y, markers = make_planted_counts(500, 200, 20, random_state=0)
    >>> W = pca_knn_affinity(normalize_log1p(X), 15, random_state=0)
    >>> W.shape, W.format
    ((500, 500), 'csr')
    """
    # through the package's public name, whichever of its modules defines it
    from ._affinity import knn_affinity

    rng = check_random_state(random_state)
    E = pca_embedding(X, n_components, n_top_features=n_top_features, random_state=rng)
    return knn_affinity(E, n_neighbors, weight=weight, t=t, symmetrize_mode=symmetrize_mode,
                        algorithm=algorithm, n_jobs=n_jobs, random_state=rng)
