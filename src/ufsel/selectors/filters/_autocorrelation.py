"""Moran's I: each feature's autocorrelation on a neighbour graph of the samples, with its null."""

from __future__ import annotations

from collections import namedtuple
from numbers import Integral

import numpy as np
from scipy import sparse
from scipy.stats import norm
from sklearn.utils._param_validation import Interval, StrOptions

from ...base import BaseSelector
from ...graph import (
    NEIGHBORS_ALGORITHMS,
    PCA_COMPONENTS,
    PCA_NEIGHBORS,
    knn_affinity,
    pca_knn_affinity,
)
from ...graph._memory import graph_terms
from ...linalg import graph_quadratic

__all__ = ["MoransI", "MoransIResult", "morans_i"]

#: Rows per block of the dense moments (float64 temporaries of ``block x d``).
_ROW_BLOCK = 4096

MoransIResult = namedtuple("MoransIResult",
                           ["statistic", "expected", "variance", "zscore", "pvalue"])
MoransIResult.__doc__ = """Moran's I of every feature and its null (see :func:`morans_i`)."""


def _central_moments(X):
    """Each column's mean and its sums of squared and fourth-power deviations, float64;
    sparse X is never densified (the zeros' share is added in closed form)."""
    n, d = X.shape
    if sparse.issparse(X):
        X = sparse.csr_matrix(X)
        cols, x = X.indices, X.data.astype(np.float64)
        mean = np.bincount(cols, weights=x, minlength=d) / n
        mu = mean[cols]
        # sum over all rows of (x - m)^p = sum over stored entries of [(x - m)^p - m^p]
        # + n m^p (a stored zero contributes nothing)
        m2 = np.bincount(cols, weights=(x - mu) ** 2 - mu**2, minlength=d) + n * mean**2
        m4 = np.bincount(cols, weights=(x - mu) ** 4 - mu**4, minlength=d) + n * mean**4
        return mean, np.maximum(m2, 0.0), np.maximum(m4, 0.0)
    X = np.asarray(X)
    mean = X.sum(axis=0, dtype=np.float64) / n
    m2, m4 = np.zeros(d), np.zeros(d)
    for start in range(0, n, _ROW_BLOCK):
        Z = X[start:start + _ROW_BLOCK].astype(np.float64) - mean
        Z *= Z
        m2 += Z.sum(axis=0)
        m4 += np.einsum("ij,ij->j", Z, Z)
    return mean, m2, m4


def morans_i(X, W):
    """Moran's I of every feature on the graph W, with its z-score and p-value.

    ``I_f = (n / S0) sum_ij w_ij z_i z_j / sum_i z_i^2`` with ``z = f - mean(f)`` and
    ``S0 = sum_ij w_ij`` (the statistic of ``scanpy.metrics.morans_i``). Its null is
    the randomisation null of Cliff and Ord [1]_: the feature's values assigned to the
    samples at random, so it holds for any distribution of the values (counts, many
    zeros, heavy tails) through their kurtosis ``b2``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data; sparse X is never centred or densified.
    W : sparse matrix of shape (n_samples, n_samples)
        Non-negative edge weights (not necessarily symmetric), e.g.
        :func:`ufsel.graph.pca_knn_affinity` or scanpy's
        ``adata.obsp["connectivities"]``.

    Returns
    -------
    result : MoransIResult
        ``statistic`` (I per feature, NaN for a constant feature), ``expected``
        (``-1 / (n - 1)``), ``variance`` (per feature), ``zscore`` and ``pvalue``
        (one-sided, for positive autocorrelation, from the normal approximation).

    Notes
    -----
    With ``r = W 1`` and ``c = W^T 1``, the numerator is
    ``f^T W f - m (r + c)^T f + m^2 S0`` (m the mean): ``f^T W f`` from
    :func:`ufsel.linalg.graph_quadratic` (row-blocked), so no centred copy of X is
    formed. Under randomisation (Cliff and Ord 1981, Eq. 1.38),
    ``E[I] = -1 / (n - 1)`` and

    ``Var[I] = [n ((n^2 - 3n + 3) S1 - n S2 + 3 S0^2) - b2 ((n^2 - n) S1 - 2n S2
    + 6 S0^2)] / ((n - 1)(n - 2)(n - 3) S0^2) - E[I]^2``

    with ``S1 = (1/2) sum_ij (w_ij + w_ji)^2``, ``S2 = sum_i (r_i + c_i)^2`` and
    ``b2 = n sum z^4 / (sum z^2)^2``. The variance needs n >= 4 (NaN below).

    References
    ----------
    .. [1] Cliff, A. D. and Ord, J. K. (1981). Spatial Processes: Models and
       Applications. Pion, London.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import sparse
    >>> from ufsel.selectors.filters import morans_i
    >>> W = sparse.diags([1.0, 1.0], [-1, 1], shape=(50, 50), format="csr")  # a path
    >>> X = np.c_[np.arange(50.0), np.tile([0.0, 1.0], 25)]
    >>> np.round(morans_i(X, W).statistic, 3)
    array([ 0.997, -1.   ])
    """
    n = X.shape[0]
    W = sparse.csr_matrix(W, dtype=np.float64)
    if W.shape != (n, n):
        raise ValueError(f"the graph is {W.shape[0]} x {W.shape[1]} but X has {n} samples; "
                         "pass the graph of these samples (n_samples x n_samples).")
    r = np.asarray(W.sum(axis=1)).ravel()
    c = np.asarray(W.sum(axis=0)).ravel()
    S0 = float(r.sum())
    if not S0 > 0:
        raise ValueError("the graph has no edges of positive weight (sum of weights "
                         f"{S0:g}); Moran's I is undefined.")
    mean, z2, z4 = _central_moments(X)
    fWf = graph_quadratic(X, W)
    rc = np.asarray(X.T @ (r + c), dtype=np.float64).ravel()
    numer = fWf - mean * rc + mean**2 * S0
    constant = ~(z2 > 1e-12 * np.maximum(n * mean**2, np.finfo(float).tiny))
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = np.where(constant, np.nan, n / S0 * numer / z2)
        b2 = np.where(constant, np.nan, n * z4 / z2**2)
    expected = -1.0 / (n - 1)
    sym = W + W.T
    S1 = 0.5 * float(np.sum(sym.data**2))
    S2 = float(np.sum((r + c) ** 2))
    if n >= 4:
        a = n * ((n * n - 3 * n + 3) * S1 - n * S2 + 3 * S0**2)
        b = (n * n - n) * S1 - 2 * n * S2 + 6 * S0**2
        variance = (a - b2 * b) / ((n - 1) * (n - 2) * (n - 3) * S0**2) - expected**2
    else:
        variance = np.full(X.shape[1], np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        zscore = np.where(variance > 0, (stat - expected) / np.sqrt(variance), np.nan)
    return MoransIResult(stat, expected, variance, zscore, norm.sf(zscore))


class MoransI(BaseSelector):
    """Moran's I: the features that vary smoothly on a neighbour graph of the samples.

    Ranks every feature by its autocorrelation on a k-NN graph of the samples: Moran's
    I (Moran 1950; ``scanpy.metrics.morans_i``), with a z-score and p-value per
    feature under the randomisation null (:func:`morans_i`). By default the graph is
    built as single-cell practice builds it, on the samples' 30 leading principal
    components (:func:`ufsel.graph.pca_knn_affinity`: scanpy's ``pp.pca`` then
    ``pp.neighbors``), so that thousands of noise features do not drown the distances;
    a graph already built (scanpy's ``adata.obsp["connectivities"]``) can be passed
    instead.

    Sparse input is never densified; float32 input stays float32.

    Parameters
    ----------
    {n_features_to_select}
    graph : {"pca", "knn"} or sparse matrix of shape (n_samples, n_samples), \
default="pca"
        ``"pca"``: the k-NN graph of the samples' principal components;
        ``"knn"``: the k-NN graph on all features; a sparse matrix: the graph of the
        samples to fit on (precomputed), for instance ``adata.obsp["connectivities"]``.
        The built graphs have binary weights, symmetrised as ``max(W, W^T)``.
    n_neighbors : int, default=15
        Neighbours per sample of the built graphs (scanpy's default).
    n_components : int, default=30
        Principal components of the ``"pca"`` graph.
    n_top_features : int or None, default=None
        Compute the ``"pca"`` graph's PCA on this many features of largest variance
        (scanpy's PCA on the highly variable genes); None: on every feature. Every
        feature is scored either way.
    rank_by : {"zscore", "statistic"}, default="zscore"
        What ``scores_`` holds: the z-score under the null, or Moran's I itself.
    neighbors_algorithm : {"auto", "exact", "approximate", "brute", "kd_tree", \
"ball_tree"}, default="auto"
        Neighbour search, see :func:`ufsel.graph.knn_graph`.
    random_state : int, RandomState or None, default=None
        Seeds the PCA's solver and the approximate neighbour search.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        The z-scores (or Moran's I, see ``rank_by``), higher is better.
    statistic_ : ndarray of shape (n_features,)
        Moran's I of each feature (NaN for constant features).
    zscores_ : ndarray of shape (n_features,)
        ``(I - E[I]) / sd[I]`` under the randomisation null.
    pvalues_ : ndarray of shape (n_features,)
        One-sided p-values (positive autocorrelation) from the normal approximation.
    {selector_attributes}

    See Also
    --------
    LaplacianScore : the same graph quadratic ``f^T L f``, as a ratio without a null.

    Notes
    -----
    With W the graph, ``S0`` its total weight and ``z`` a feature minus its mean,
    ``I = (n / S0) z^T W z / z^T z``. I is near ``E[I] = -1 / (n - 1)`` for a feature
    unrelated to the graph and approaches 1 for one that is constant within
    neighbourhoods. It is a close kin of the Laplacian score (for a regular graph,
    ``I = 1 - L_r`` up to the mean's weighting) with a proper null: the z-score
    divides by I's standard deviation under random assignment of the feature's values
    to the samples, which depends on the feature's kurtosis, so a sparse gene seen in
    few cells is not favoured over a broadly expressed one by chance alone.

    **Interpretations**:

    - The graph is built on X as given: for counts, normalise first
      (``make_pipeline(NormalizeLog1p(), MoransI())`` or
      ``select_features(adata, counts="log1p", method="moransi")``).
    - Constant features get the lowest score and rank last; their statistic and
      z-score are NaN.
    - The p-values are those of a normal approximation (as Hotspot's and
      squidpy's); for a list of significant features, correct them for multiple
      testing (``scipy.stats.false_discovery_control``).

    References
    ----------
    .. [1] Moran, P. A. P. (1950). Notes on continuous stochastic phenomena.
       Biometrika 37, 17-23.
    .. [2] DeTomaso, D. and Yosef, N. (2021). Hotspot identifies informative gene
       modules across modalities of single-cell genomics. Cell Systems 12, 446-456.

    Examples
    --------
    >>> from ufsel import MoransI
    >>> from ufsel.datasets import make_planted_counts
    >>> from ufsel.preprocessing import normalize_log1p
    >>> X, y, markers = make_planted_counts(600, 200, 20, random_state=0)
    >>> sel = MoransI(n_features_to_select=20, random_state=0).fit(normalize_log1p(X))
    >>> int(sel.get_support()[markers].sum())
    20
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "graph": [StrOptions({"pca", "knn"}), "sparse matrix"],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "n_top_features": [Interval(Integral, 1, None, closed="left"), None],
        "rank_by": [StrOptions({"zscore", "statistic"})],
        "neighbors_algorithm": [StrOptions(set(NEIGHBORS_ALGORITHMS))],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, *, graph="pca", n_neighbors=PCA_NEIGHBORS,
                 n_components=PCA_COMPONENTS, n_top_features=None, rank_by="zscore",
                 neighbors_algorithm="auto", random_state=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.n_top_features = n_top_features
        self.rank_by = rank_by
        self.neighbors_algorithm = neighbors_algorithm
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        terms = super()._memory_terms(shape)
        if isinstance(self.graph, str):  # the graph the fit builds (a PCA's k-NN by default)
            terms.update(graph_terms(shape, self))
        return terms

    def _graph(self, X):
        if not isinstance(self.graph, str):
            return self.graph
        rng = self._start_fit(X)
        if self.graph == "pca":
            return pca_knn_affinity(X, self.n_neighbors, n_components=self.n_components,
                                    n_top_features=self.n_top_features, weight="binary",
                                    algorithm=self.neighbors_algorithm, random_state=rng)
        return knn_affinity(X, self.n_neighbors, weight="binary",
                            algorithm=self.neighbors_algorithm, random_state=rng)

    def _fit(self, X):
        result = morans_i(X, self._graph(X))
        self.statistic_ = result.statistic
        self.zscores_ = result.zscore
        self.pvalues_ = result.pvalue
        scores = result.zscore if self.rank_by == "zscore" else result.statistic
        finite = np.isfinite(scores)
        lowest = scores[finite].min() - 1.0 if finite.any() else 0.0
        return np.where(finite, scores, lowest)
