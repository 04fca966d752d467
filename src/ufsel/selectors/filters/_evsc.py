"""EVSC: eigenvalue-sensitivity scores after Jiang & Ren, ICML 2011 (paper unavailable; see EVSC)."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.utils._param_validation import Interval, StrOptions

from ...base import BaseSelector
from ...graph import (
    SYMMETRIZE,
    bandwidth_before_search,
    knn_affinity_and_bandwidth,
    null_space_dimension,
    spectral_embedding,
)
from ...graph._memory import eigen_terms, knn_terms
from ...utils._memory import embedding_term

__all__ = ["EVSC", "eigenvalue_sensitivity"]


def eigenvalue_sensitivity(X, W, Y, lambdas, t):
    """Derivatives ``d lambda_k / d w_l`` of the graph eigenvalues w.r.t. feature weights.

    The affinity is the feature-weighted heat kernel
    ``W_ij(w) = exp(-sum_l w_l (x_il - x_jl)^2 / (2 t^2))`` on a fixed k-NN
    edge set, evaluated at ``w = 1``, so
    ``dW_ij / dw_l = -W_ij (x_il - x_jl)^2 / (2 t^2)``. For a solution of
    ``L y = lambda D y`` with ``y^T D y = 1`` (``L = D - W``), first-order
    perturbation theory gives

        d lambda = y^T (dL - lambda dD) y = sum_ij dW_ij [(1 - lambda)(y_i^2 + y_j^2)/2 - y_i y_j].

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    W : sparse matrix of shape (n_samples, n_samples)
        The symmetric heat-kernel affinity (its values at ``w = 1``).
    Y : ndarray of shape (n_samples, K)
        D-orthonormal eigenvectors.
    lambdas : ndarray of shape (K,)
        Their eigenvalues.
    t : float
        Kernel bandwidth.

    Returns
    -------
    dlam : ndarray of shape (K, n_features)
        ``dlam[k, l] = d lambda_k / d w_l``.
    """
    W = sparse.coo_matrix(W)
    i, j, wv = W.row, W.col, W.data
    K = Y.shape[1]
    d = X.shape[1]
    Xsq = X.multiply(X).tocsr() if sparse.issparse(X) else X * X
    out = np.empty((K, d))
    n = X.shape[0]
    for k in range(K):
        y = Y[:, k]
        c = (1.0 - lambdas[k]) * 0.5 * (y[i] ** 2 + y[j] ** 2) - y[i] * y[j]
        B = sparse.csr_matrix((wv * c, (i, j)), shape=(n, n))
        b = np.asarray(B.sum(axis=1)).ravel()
        BX = B @ X
        cross = (np.asarray(X.multiply(BX).sum(axis=0)).ravel() if sparse.issparse(X)
                 else np.einsum("ij,ij->j", X, BX))
        # sum_ij B_ij (x_il - x_jl)^2 = 2 b^T x_l^2 - 2 x_l^T B x_l  (B symmetric)
        quad = 2.0 * np.asarray(Xsq.T @ b).ravel() - 2.0 * cross
        out[k] = -quad / (2.0 * t * t)
    return out


def _between_component_share(X, W):
    """Each feature's share of variance between the connected components of W."""
    from scipy.sparse.csgraph import connected_components

    from ...linalg import column_mean_var

    _, labels = connected_components(W, directed=False)
    n = X.shape[0]
    counts = np.bincount(labels).astype(np.float64)
    onehot = sparse.csr_matrix((np.ones(n), (labels, np.arange(n))), shape=(counts.size, n))
    sums = onehot @ X
    means = (sums.toarray() if sparse.issparse(sums) else np.asarray(sums)) / counts[:, None]
    mean, var = column_mean_var(X)
    between = (counts[:, None] * (means - mean) ** 2).sum(axis=0) / n
    return np.where(var > 0, between / np.where(var > 0, var, 1.0), 0.0)


class EVSC(BaseSelector):
    """Eigenvalue-sensitive feature scores (EVSC), after Jiang and Ren, ICML 2011.

    Scores each feature by how much up-weighting it in the graph's heat kernel lowers
    the smallest non-trivial eigenvalues of the graph Laplacian, that is, how much
    it sharpens the cluster structure. The paper's text and code could not be
    obtained: this is ufsel's own construction on the paper's stated premise, a
    provisional baseline (see Notes) whose figures need not match the published ones.

    Sparse input is never densified.

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of clusters (the c - 1 smallest non-trivial eigenvalues
        are used; one for c = 1).
    n_neighbors : int, default=5
        Number of nearest neighbours of each sample in the k-NN graph (the sample
        itself excluded).
    t : "mean", "median" or float, default="mean"
        Heat-kernel bandwidth.
    symmetrize : {"max", "mean", "min"}, default="max"
        How the k-NN graph is made symmetric (``"max"`` is the OR graph of Cai's
        ``constructW``).
    eigen_solver : {"auto", "dense", "arpack", "lobpcg"}, default="auto"
        See :func:`ufsel.graph.spectral_embedding`.
    random_state : int, RandomState or None, default=None
        Seeds the eigensolver's start vector and the sample on which the bandwidth
        is estimated. Pass an int for reproducible results.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Score of each feature, higher is better.
    sensitivities_ : ndarray of shape (max(n_clusters - 1, 1), n_features)
        ``d lambda_k / d w_l`` for the non-trivial eigenvalues used.
    eigenvalues_ : ndarray of shape (max(n_clusters - 1, 1),)
        The eigenvalues used (0 for those of extra connected components).
    component_scores_ : bool
        True when every eigenvalue used was such a 0, so that the scores are the
        features' between-component shares of variance (see Notes).
    {selector_attributes}

    See Also
    --------
    LaplacianScore
        Scores each feature by its locality on a fixed graph.
    SPEC
        Scores features against the normalised Laplacian's spectrum.

    Notes
    -----
    **Premise** (as reported from the ICML 2011 abstract [1]_): a graph built from all
    unweighted features is unreliable when many are noise, so a feature is judged by
    its effect on the similarity matrix, read through the eigenvalues of the graph
    Laplacian. The authors' companion paper [2]_ perturbs the Laplacian's
    eigenvectors instead; it confirms the recipe (first-order perturbation of the
    eigen-system with respect to a per-feature weight, trivial eigenvalue excluded)
    but is a different criterion. No equation numbers are cited.

    **Construction**:

    1. A k-NN heat-kernel graph (sparse, OR-symmetrised, bandwidth ``t``) in which
       feature l carries a weight ``w_l`` (all 1):
       ``W_ij = exp(-sum_l w_l (x_il - x_jl)^2 / (2 t^2))``.
    2. The c - 1 smallest non-trivial solutions of ``L y = lambda D y``
       (``L = D - W``, c = ``n_clusters``; ``lambda_2`` for c = 1): with the trivial
       ``lambda_1 = 0`` their sum is the relaxed normalised cut into c clusters.
    3. The exact first-order sensitivities ``d lambda_k / d w_l`` at ``w = 1``
       (:func:`eigenvalue_sensitivity`), with the edge set held fixed.
    4. ``score_l = -sum_k d lambda_k / d w_l``: a feature is relevant when
       up-weighting it weakens the edges between clusters more than those within.

    **Interpretations**:

    - On a graph with m > 1 connected components lambda = 0 is repeated m times;
      those eigenvalues cannot move under feature weights (every edge stays inside its
      component), so their sensitivity is set to its exact value, 0. When all c - 1
      are such, the graph's components are the clusters (the easiest data there
      is), and the sensitivities say nothing: the components are then taken as
      the clusters they are, and each feature scores its between-component share
      of variance, ``sum_c n_c (mean_c - mean)^2 / sum_i (x_i - mean)^2`` (in
      [0, 1]; ``component_scores_`` is True). A UserWarning says so.
    - The sum is signed, not absolute: the generalised eigenvalues do not change
      under a uniform rescaling of W, so a feature whose squared differences are
      unrelated to the clusters has sensitivities near 0 of either sign, and
      absolute values would let it compete with the relevant features, whose
      sensitivities are negative.
    - The graph is a sparse k-NN graph (k = 5) with Cai's mean-distance bandwidth.

    Cost: one k-NN graph, a partial eigensolver for c eigenpairs and
    O(c (nnz(W) + nnz(X))) for the sensitivities; no dense n x n matrix.

    See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] Y. Jiang, J. Ren. Eigenvalue sensitive feature selection. ICML 2011.
    .. [2] Y. Jiang, J. Ren. Eigenvector sensitive feature selection for spectral
       clustering. ECML PKDD 2011.

    Examples
    --------
    >>> from ufsel import EVSC
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, y, informative = make_planted_clusters(random_state=0)
    >>> EVSC(n_features_to_select=5, n_clusters=4, random_state=0).fit(X).transform(X).shape
    (200, 5)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "t": [StrOptions({"mean", "median"}), Interval(Real, 0, None, closed="neither")],
        "symmetrize": [StrOptions(set(SYMMETRIZE) - {"none"})],
        "eigen_solver": [StrOptions({"auto", "dense", "arpack", "lobpcg"})],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_neighbors=5, t="mean",
                 symmetrize="max", eigen_solver="auto", random_state=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.t = t
        self.symmetrize = symmetrize
        self.eigen_solver = eigen_solver
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        return {**super()._memory_terms(shape), **knn_terms(shape, self.n_neighbors),
                **eigen_terms(shape.n, self.n_clusters),
                **embedding_term(shape.n * (self.n_neighbors + 1), self.n_clusters, 4,
                                 "edge sensitivities")}

    def _fit(self, X):
        name = type(self).__name__
        rng = self._start_fit(X)
        t = bandwidth_before_search(X, self.t, random_state=rng)
        W, t = knn_affinity_and_bandwidth(X, self.n_neighbors, weight="heat", t=t,
                                          symmetrize_mode=self.symmetrize)
        Y, lam = spectral_embedding(W, max(self.n_clusters - 1, 1), eigen_solver=self.eigen_solver,
                                    random_state=rng, return_eigenvalues=True)
        sens = eigenvalue_sensitivity(X, W, Y, lam, t)
        # Each connected component beyond the first adds a solution with lambda = 0, which
        # no feature weight can move (every edge stays inside its component): its
        # sensitivity is 0 exactly, and which basis of that eigenspace the solver returns
        # is round-off. Computed, those sensitivities would be round-off too, and could
        # decide the ranking. They are set to their exact value.
        n_components = null_space_dimension(W) + 1
        n_null = min(n_components - 1, lam.size)
        lam[:n_null] = 0.0
        sens[:n_null] = 0.0
        self.eigenvalues_ = lam
        self.sensitivities_ = sens
        self.component_scores_ = bool(n_null == lam.size)
        if self.component_scores_:
            warnings.warn(
                f"{name}: the {self.n_neighbors}-NN graph has {n_components} connected components, "
                f"so all {lam.size} eigenvalues EVSC uses (n_clusters - 1) are 0 and no feature "
                "can move them; the components are taken as the clusters and each feature "
                "scores its between-component share of variance.",
                UserWarning, stacklevel=3)
            return _between_component_share(X, W)
        return -self.sensitivities_.sum(axis=0)
