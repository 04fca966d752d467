"""Label-free criteria of a feature subset, computed against the full data.

Each criterion is built once for a data set (it keeps a row sample of X and
what the subsets are compared with) and then evaluated cheaply for many
subsets: the chosen one, and the random subsets of the same size that form
its null distribution. Higher is better for all four.

``"cluster_agreement"``
    The adjusted Rand index between a k-means partition of the samples on
    the subset's columns (one k-means++ start) and a k-means partition on all
    columns (``n_init=10``, computed once), both with K clusters (K from
    :func:`estimate_n_clusters` unless given). It asks the question a user
    of unsupervised feature selection cares about: does clustering on the
    selected features find the clusters that all features support? ARI is
    corrected for chance (about 0 for an unrelated partition), so small and
    large subsets are on one scale.
``"multiscale_agreement"`` (the default everywhere, :data:`DEFAULT_CRITERION`)
    The mean of ``"cluster_agreement"`` over K, 2K, 4K, ... up to
    ``max(K, sqrt(m))`` clusters (m the rows used, see :func:`agreement_scales`).
    The eigengap estimate of K finds the most pronounced scale of the data,
    often a coarse one (2 or 3 on face data sets with 40 to 100 people,
    ``benchmarks/results/estimate_n_clusters.md``); at that scale a subset that
    keeps only the coarse split agrees as well as one that also keeps the finer
    structure. Averaging over the finer scales tells them apart. sqrt(n) is the
    customary upper bound on a number of clusters; doubling keeps the number of
    k-means runs logarithmic (at most 5 scales for m <= 1000 and K >= 2).
``"knn_preservation"``
    The mean fraction of each sample's ``n_neighbors`` nearest neighbours in
    the full feature space that are also among its ``n_neighbors`` nearest
    neighbours in the subset (k-NN recall; the Jaccard overlap of two sets of
    equal size k is a monotone function of it, ``o / (2k - o)``). It measures
    the finest scale: inside a cluster the neighbours are decided by the
    noise features, so it is weak on data with many noise features.
``"reconstruction"``
    The fraction of the (centred) data's total variance explained by a least
    squares fit of every feature on the selected ones,
    ``1 - ||X - P_S X||_F^2 / ||X||_F^2`` with ``P_S`` the orthogonal
    projection onto the span of the selected columns (a rank-revealing SVD,
    so duplicated columns are harmless). It rewards variance, not structure.

All are computed on X as given (centred; ``standardize=True`` scales every
column to unit variance first) and on at most ``max_samples`` rows drawn at
random, so one evaluation costs O(max_samples^2 k) for the k-NN criterion,
O(max_samples k d) for the reconstruction one and a few k-means runs on
max_samples x k for the cluster agreement (one per scale), whatever n. For the k-NN
criterion, distances are rounded to 9 significant digits relative to the
largest and ties broken by sample index, so the neighbour sets do not
depend on the BLAS's round-off.
"""

from __future__ import annotations

import warnings
from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning

from ..linalg import constant_features
from ..utils import thread_limit

__all__ = ["CRITERIA", "DEFAULT_CRITERION", "agreement_scales", "make_criterion", "standardized"]

#: The label-free criteria of a feature subset (see the module docstring).
CRITERIA = ("cluster_agreement", "multiscale_agreement", "knn_preservation", "reconstruction")
#: The criterion of random_subset_test, suggest_n_features and AutoSelector by default.
DEFAULT_CRITERION = "multiscale_agreement"


def _row_sample(X, max_samples, rng):
    n = X.shape[0]
    rows = np.arange(n) if n <= max_samples else np.sort(rng.choice(n, max_samples, replace=False))
    Xr = X[rows]
    Xr = Xr.toarray() if sparse.issparse(Xr) else np.array(Xr, dtype=np.float64)
    return Xr.astype(np.float64, copy=False)


#: Rows standardised at a time in place (:func:`standardized` with ``copy=False``).
STANDARDIZE_BLOCK_ROWS = 2**16


def standardized(X, *, copy=True):
    """X with every non-constant column scaled to unit variance.

    The one standardiser of the route: of ``AutoSelector(standardize=...)``,
    ``ufsel select --standardize``, the criteria's row samples, the
    meta-features and the large-file fit on every row.

    Parameters
    ----------
    X : {ndarray, sparse matrix, dask array} of shape (n_samples, n_features)
        The data.
    copy : bool, default=True
        Work on a float64 copy of dense X; False standardises a dense array in
        place, block by block, in its own dtype (no second copy of a large
        array).

    Returns
    -------
    Xs : ndarray, sparse matrix or dask array
        Dense columns centred and divided by their (ddof=0) standard
        deviation; a sparse matrix only scaled (centring would densify it); a
        dask array lazily. Constant columns (:func:`constant_features`) are
        set to 0 (dense, dask) or kept (sparse).
    """
    from ..linalg import column_mean_var
    from ..utils import is_dask_array

    const = np.asarray(constant_features(X), dtype=bool)
    mean, var = column_mean_var(X)
    scale = np.where(const | (var == 0), 1.0, np.sqrt(var))
    if sparse.issparse(X):
        return sparse.csr_matrix(X @ sparse.diags(1.0 / scale))
    if is_dask_array(X):
        return ((X - mean) / scale * (~const)).astype(X.dtype)
    X = np.array(X, dtype=np.float64) if copy else X
    for s in range(0, X.shape[0], STANDARDIZE_BLOCK_ROWS):
        block = X[s:s + STANDARDIZE_BLOCK_ROWS]
        block -= mean.astype(X.dtype)
        block /= scale.astype(X.dtype)
        block[:, const] = 0.0
    return X


def _knn_indices(Xs, k):
    """Indices of each row's k nearest other rows (ties by index; BLAS round-off removed)."""
    m = Xs.shape[0]
    sq = np.einsum("ij,ij->i", Xs, Xs)
    D = sq[:, None] + sq[None, :] - 2.0 * (Xs @ Xs.T)
    np.maximum(D, 0.0, out=D)
    top = float(D.max()) if D.size else 0.0
    if top > 0:
        q = top * 1e-9
        D = np.round(D / q)  # integer-valued: exact ties stay ties, round-off vanishes
        D += np.arange(m)[None, :] / (2.0 * m)  # ties broken by index, never across values
    np.fill_diagonal(D, np.inf)
    return np.argpartition(D, k - 1, axis=1)[:, :k]


class _KnnPreservation:
    def __init__(self, Xr, n_neighbors):
        self.Xr = Xr
        self.k = int(min(n_neighbors, Xr.shape[0] - 1))
        m = Xr.shape[0]
        ref = _knn_indices(Xr, self.k)
        self.member = np.zeros((m, m), dtype=bool)
        self.member[np.arange(m)[:, None], ref] = True

    def __call__(self, cols):
        idx = _knn_indices(self.Xr[:, cols], self.k)
        hits = np.take_along_axis(self.member, idx, axis=1)
        return float(hits.mean())


def agreement_scales(n_clusters, n_samples):
    """The numbers of clusters of the ``"multiscale_agreement"`` criterion: K, 2K, 4K, ...
    up to ``max(K, sqrt(n_samples))``, each at most ``n_samples - 1``."""
    K = int(min(n_clusters, n_samples - 1))
    top = max(K, int(np.sqrt(n_samples)))
    scales = [K]
    while 2 * scales[-1] <= min(top, n_samples - 1):
        scales.append(2 * scales[-1])
    return tuple(scales)


class _ClusterAgreement:
    """Mean ARI over the numbers of clusters ``scales`` (one for "cluster_agreement")."""

    def __init__(self, Xr, scales, seed, n_init):
        self.Xr = Xr
        self.scales = tuple(int(min(K, Xr.shape[0] - 1)) for K in scales)
        self.seed, self.n_init = seed, n_init
        self.reference = [self._labels(Xr, K, 10) for K in self.scales]

    def _labels(self, Z, K, n_init, run=0):
        # A subset of few (e.g. binary or mostly constant) columns often has fewer
        # distinct points than K: k-means then finds fewer clusters and warns. That is
        # a property of the subset, which the criterion measures (a low agreement), not
        # something the user can act on, so the warning is not passed on.
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Number of distinct clusters",
                                    category=ConvergenceWarning)
            km = KMeans(K, n_init=n_init, random_state=self.seed + run).fit(Z)
        return km.labels_

    def __call__(self, cols, run=0):
        Z = self.Xr[:, cols]
        return float(np.mean([_adjusted_rand(ref, self._labels(Z, K, self.n_init, run))
                              for K, ref in zip(self.scales, self.reference)]))


def _adjusted_rand(a, b):
    """The adjusted Rand index of two labelings ``0..K-1`` (Hubert & Arabie, 1985).

    The same value as :func:`sklearn.metrics.adjusted_rand_score` (tested), without its
    input checks: the criterion computes thousands of them on k-means labels, where the
    checks cost more than the index.
    """
    n = a.size
    table = np.bincount(a * (int(b.max()) + 1) + b).astype(np.float64)
    comb = lambda x: float(np.sum(x * (x - 1.0)) / 2.0)  # noqa: E731
    both = comb(table)
    rows = comb(np.bincount(a).astype(np.float64))
    cols = comb(np.bincount(b).astype(np.float64))
    total = n * (n - 1.0) / 2.0
    expected = rows * cols / total if total else 0.0
    top = (rows + cols) / 2.0
    if top == expected:  # one cluster each, or every point its own: as scikit-learn does
        return 1.0
    return (both - expected) / (top - expected)


class _Memoized:
    """A criterion evaluated once per distinct subset.

    The same subset recurs: candidate methods often rank the same top
    features, and every subset of a small size is enumerated for the exact
    null. An estimate (a candidate's score, a point of the feature-count
    curve) may average ``repeats`` k-means runs; a test compares single runs
    with single runs, so that the selection and the random subsets are
    exchangeable under the null. Callers evaluate it under ``thread_limit(0)``: k-means on a row
    sample of a few columns is a small problem (:mod:`ufsel.utils._threads`).
    """

    def __init__(self, fn):
        self.fn = fn
        self.cache = {}
        self.randomized = isinstance(fn, _ClusterAgreement)

    def __call__(self, cols, repeats=1):
        """The criterion of ``cols``; with ``repeats > 1``, the mean over that many k-means
        runs of different seeds (the first is the single run's), which lowers the noise of
        an estimate without changing its expectation."""
        key = tuple(int(c) for c in np.sort(np.asarray(cols)))
        runs = range(repeats if self.randomized else 1)
        for run in runs:
            if (key, run) not in self.cache:
                idx = np.asarray(key, dtype=np.intp)
                self.cache[key, run] = self.fn(idx, run) if self.randomized else self.fn(idx)
        return float(np.mean([self.cache[key, run] for run in runs]))


class _Reconstruction:
    def __init__(self, Xr):
        self.Xr = Xr
        self.total = float(np.einsum("ij,ij->", Xr, Xr))

    def __call__(self, cols):
        if self.total == 0:
            return 0.0
        Xs = self.Xr[:, cols]
        # orthonormal basis of the selected columns' span (rank-revealing SVD,
        # so duplicated or constant columns are harmless)
        U, s, _ = np.linalg.svd(Xs, full_matrices=False)
        tol = s.max() * max(Xs.shape) * np.finfo(np.float64).eps if s.size else 0.0
        U = U[:, s > tol]
        proj = U.T @ self.Xr
        return float(np.einsum("ij,ij->", proj, proj) / self.total)


#: The criteria are computed on at most this many rows (a seeded sample).
MAX_CRITERION_SAMPLES = 1000


def make_criterion(X, criterion=DEFAULT_CRITERION, *, n_clusters=None, n_neighbors=10,
                   max_samples=MAX_CRITERION_SAMPLES, standardize=False, n_init=1, rng):
    """A callable ``f(columns) -> float`` (higher is better) for subsets of X's columns.

    See the module docstring for the criteria. ``rng`` is a RandomState
    (it draws the row sample).
    """
    if criterion not in CRITERIA:
        raise ValueError(
            f"criterion={criterion!r} not understood, valid options are {set(CRITERIA)}."
        )
    if n_clusters is not None and (not isinstance(n_clusters, Integral)
                                   or isinstance(n_clusters, bool) or n_clusters < 2):
        # one cluster is every partition: the agreement would be 1 for any subset
        raise ValueError(f"n_clusters must be an integer >= 2 (or None: estimated from X), "
                         f"got {n_clusters!r}.")
    Xr = _row_sample(X, max_samples, rng)
    if Xr.shape[0] < 3:
        raise ValueError(f"the {criterion} criterion needs at least 3 samples, got {Xr.shape[0]}.")
    if standardize:
        Xr = standardized(Xr, copy=False)
    else:
        Xr = Xr - Xr.mean(axis=0)
    if criterion in ("cluster_agreement", "multiscale_agreement") and n_clusters is None:
        from ._n_clusters import estimate_n_clusters

        n_clusters = estimate_n_clusters(X, random_state=rng)
    with thread_limit(0):
        if criterion == "knn_preservation":
            fn = _KnnPreservation(Xr, n_neighbors)
        elif criterion in ("cluster_agreement", "multiscale_agreement"):
            scales = ((n_clusters,) if criterion == "cluster_agreement"
                      else agreement_scales(n_clusters, Xr.shape[0]))
            fn = _ClusterAgreement(Xr, scales, int(rng.randint(2**31 - 1)), n_init)
        else:
            fn = _Reconstruction(Xr)
    return _Memoized(fn)
