"""SPEC: spectral feature selection (Zhao & Liu, ICML 2007)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from sklearn.metrics import euclidean_distances, pairwise_distances
from sklearn.utils._param_validation import Interval, StrOptions

from ...base import BaseSelector
from ...graph import GRAPHS, N_ANCHORS, anchor_graph, heat_kernel_bandwidth, resolve_graph
from ...graph._memory import eigen_terms, spectral_terms
from ...linalg import DENSE_EIGH_MAX, partial_eigh
from ...utils._memory import square_term

__all__ = ["SPEC", "spec_scores", "spec_scores_anchor"]

#: Largest n for which the full RBF kernel (n_neighbors=None) or a full
#: eigendecomposition (non-integer power) is formed densely.
SPEC_DENSE_MAX = 5000

#: phi1, phi2: smaller is better; phi3: larger is better.
_LOWER_IS_BETTER = {"phi1": True, "phi2": True, "phi3": False}


#: Largest dense n x block piece of ``V^T F^`` formed at once (non-integer power).
_BLOCK_BYTES = 64 * 1024**2


def _t_dot(F, V):
    """``F^T V`` as a dense array (F dense or sparse, never densified)."""
    return np.asarray(F.T @ V)


def _normalised_affinity(S):
    deg = np.asarray(S.sum(axis=1)).ravel()
    dh = np.sqrt(np.maximum(deg, 0.0))
    dinv = np.zeros_like(dh)
    np.divide(1.0, dh, out=dinv, where=dh > 0)
    if sparse.issparse(S):
        A = (sparse.diags(dinv) @ S @ sparse.diags(dinv)).tocsr()
    else:
        A = dinv[:, None] * S * dinv[None, :]
    return A, dh


#: Eigenvalues of L^ closer than this (in a chain) form one repeated eigenvalue.
_TIE_TOL = 1e-8


def _nontrivial_smallest(A, xi1, m, random_state):
    """The m smallest eigenpairs of ``L^ = I - A`` orthogonal to the trivial ``xi_1``.

    ``xi_1 = D^{1/2} 1 / ||D^{1/2} 1||`` is an exact eigenvector of A (eigenvalue
    1). It is projected out of the operator itself, ``P A P - 3 xi_1 xi_1^T``
    with ``P = I - xi_1 xi_1^T`` (which sends xi_1 below the spectrum [-1, 1] of
    A and leaves every other eigenpair unchanged), instead of dropping "the
    first" computed eigenvector: on a disconnected graph the eigenvalue 1 of A
    is repeated (one per component) and the solver returns an arbitrary basis
    of that eigenspace, in which xi_1 is not a column. Dense LAPACK up to
    ``DENSE_EIGH_MAX`` nodes, ARPACK above (:func:`ufsel.linalg.partial_eigh`).

    Ties: when the repeated eigenvalue at position m extends beyond m (a tie
    straddling the cut), more eigenpairs are computed until the whole cluster
    (eigenvalues within ``_TIE_TOL`` of each other, chained) is known, and the
    r cluster members share the s remaining slots with weight ``s / r`` each,
    which is the average of the basis-dependent sum over every choice of s
    vectors of the eigenspace, and does not depend on the basis the solver
    returns.

    Returns
    -------
    lam : ndarray of shape (p,), ascending eigenvalues of L^ (p >= m)
    V : ndarray of shape (n, p)
    weight : ndarray of shape (p,), summing to m
    """
    n = A.shape[0]
    xi = xi1[:, None]

    def matmat(Z):
        Z = np.asarray(Z).reshape(n, -1)
        PZ = Z - xi @ (xi.T @ Z)
        APZ = np.asarray(A @ PZ)
        return APZ - xi @ (xi.T @ APZ) - 3.0 * xi @ (xi.T @ Z)

    op = splinalg.LinearOperator((n, n), matvec=matmat, matmat=matmat, rmatvec=matmat,
                                 rmatmat=matmat, dtype=np.float64)
    if n <= DENSE_EIGH_MAX:
        Ad = matmat(np.eye(n))
        op = 0.5 * (Ad + Ad.T)
    p = min(n - 1, m + max(4, m))
    while True:
        w, V = partial_eigh(op, p, which="largest", random_state=random_state)
        lam = np.clip(1.0 - w[::-1], 0.0, 2.0)
        V = V[:, ::-1]
        last = m - 1
        while last + 1 < p and lam[last + 1] - lam[last] <= _TIE_TOL:
            last += 1
        if last + 1 < p or p == n - 1:
            break
        p = min(n - 1, 2 * p)
    first = m - 1
    while first > 0 and lam[first] - lam[first - 1] <= _TIE_TOL:
        first -= 1
    weight = np.zeros(p)
    weight[:first] = 1.0
    weight[first:last + 1] = (m - first) / (last + 1 - first)
    return lam[:last + 1], V[:, :last + 1], weight[:last + 1]


def spec_scores(X, S, *, scoring="phi2", power=1.0, n_clusters=5, random_state=None):
    """The SPEC feature values phi1, phi2 or phi3 (Zhao & Liu 2007, Eq. 6, 8, 9).

    With ``L^ = I - D^{-1/2} S D^{-1/2}`` = ``sum_j lambda_j xi_j xi_j^T``
    (``lambda_1 = 0``, ``xi_1 = D^{1/2} 1 / ||D^{1/2} 1||``),
    ``f^ = D^{1/2} f / ||D^{1/2} f||`` and ``alpha_j = xi_j^T f^``:

    - ``phi1(f) = f^T gamma(L^) f^ = sum_j gamma(lambda_j) alpha_j^2`` (smaller is better);
    - ``phi2(f) = phi1(f) / (1 - alpha_1^2)`` (smaller is better);
    - ``phi3(f) = sum_{j=2..k} (gamma(2) - gamma(lambda_j)) alpha_j^2`` (larger is better),

    with ``gamma(lambda) = lambda^power`` and k = ``n_clusters``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)
    S : {sparse matrix, ndarray} of shape (n, n), symmetric non-negative
    scoring : {"phi1", "phi2", "phi3"}
    power : float > 0
        Integer powers of phi1/phi2 use sparse products with L^ only; other
        powers need the full eigendecomposition (n <= 5000).
    n_clusters : int
        k of phi3 (uses xi_2 .. xi_k, a partial eigensolve of L^ with the
        exact xi_1 projected out; a repeated eigenvalue straddling position k
        is shared evenly, see :func:`_nontrivial_smallest`).

    Returns
    -------
    values : ndarray of shape (d,)
        The raw phi values; degenerate features (``D^{1/2} f = 0``, or for
        phi2 ``f^`` parallel to ``xi_1``, i.e. a constant feature) get ``inf``
        for phi1/phi2 and ``-inf`` for phi3 (the worst value in each direction).
    """
    n, d = X.shape
    A, dh = _normalised_affinity(S)
    Fh = (sparse.diags(dh) @ X) if sparse.issparse(X) else dh[:, None] * X
    norms = np.sqrt(np.asarray(Fh.multiply(Fh).sum(axis=0)).ravel() if sparse.issparse(Fh)
                    else np.einsum("ij,ij->j", Fh, Fh))
    scale = np.finfo(float).eps * 100 * max(1.0, float(norms.max()) if d else 1.0)
    bad = norms <= scale
    inv = np.zeros(d)
    np.divide(1.0, norms, out=inv, where=~bad)
    sp = sparse.issparse(Fh)
    Fh = (Fh @ sparse.diags(inv)).tocsc() if sp else Fh * inv
    xi1 = dh / np.linalg.norm(dh) if np.any(dh > 0) else np.full(n, n**-0.5)
    a1 = _t_dot(Fh, xi1)
    if scoring == "phi3":
        k = min(n_clusters, n)
        if k < 2:
            vals = np.zeros(d)
        else:
            lam, V, weight = _nontrivial_smallest(A, xi1, k - 1, random_state)
            alpha = _t_dot(Fh, V).T
            vals = ((weight * (2.0**power - lam**power))[:, None] * alpha**2).sum(axis=0)
        vals[bad] = -np.inf
        return vals
    if float(power).is_integer():
        Z = Fh
        for _ in range(int(power)):
            Z = Z - A @ Z  # L^ Z
        phi1 = (np.asarray(Fh.multiply(Z).sum(axis=0)).ravel() if sp
                else np.einsum("ij,ij->j", Fh, Z))
    else:
        if n > SPEC_DENSE_MAX:
            raise ValueError(
                f"SPEC with a non-integer power={power} needs the full eigendecomposition of an "
                f"{n} x {n} matrix (limit n <= {SPEC_DENSE_MAX}). Use an integer power."
            )
        Ad = A.toarray() if sparse.issparse(A) else A
        w, V = linalg.eigh(0.5 * (Ad + Ad.T))
        lam = np.clip(1.0 - w, 0.0, 2.0)
        phi1 = np.empty(d)
        step = max(1, _BLOCK_BYTES // (8 * n))  # V^T F^ column block by column block
        for j in range(0, d, step):
            phi1[j:j + step] = ((lam**power)[:, None]
                                * _t_dot(Fh[:, j:j + step], V).T ** 2).sum(axis=0)
    phi1 = np.maximum(phi1, 0.0)
    if scoring == "phi1":
        phi1[bad] = np.inf
        return phi1
    denom = 1.0 - a1**2
    bad2 = bad | (denom <= 1e-10)
    vals = np.full(d, np.inf)
    vals[~bad2] = phi1[~bad2] / denom[~bad2]
    return vals


def spec_scores_anchor(graph, *, scoring="phi2", power=1.0, n_clusters=5):
    """:func:`spec_scores` on an anchor graph (:func:`ufsel.graph.anchor_graph`).

    There ``D = I`` (every degree is one), so ``L^ = I - W``,
    ``f^ = f / ||f||`` and ``xi_1 = 1 / sqrt(n)``. W has rank at most m: with
    its eigenpairs ``(1 - lambda_j, y_j)`` (:meth:`AnchorGraph.full_spectrum`)
    and ``alpha_j = y_j^T f^``, ``phi1 = sum_j gamma(lambda_j) alpha_j^2 +
    gamma(1) (1 - sum_j alpha_j^2)`` for any power, from the m x d reduction
    ``Z^T X``. phi3 takes ``xi_2 .. xi_k`` from
    :meth:`AnchorGraph.spectral_coefficients`.

    Parameters
    ----------
    graph : AnchorGraph
        The anchor graph of X.
    scoring : {"phi1", "phi2", "phi3"}
    power : float > 0
    n_clusters : int

    Returns
    -------
    values : ndarray of shape (d,)
        As :func:`spec_scores`.
    """
    norms = np.sqrt(graph.col_sq)
    d = norms.size
    scale = np.finfo(float).eps * 100 * max(1.0, float(norms.max()) if d else 1.0)
    bad = norms <= scale
    inv = np.zeros(d)
    np.divide(1.0, norms, out=inv, where=~bad)
    if scoring == "phi3":
        k = min(n_clusters, graph.n_samples)
        if k < 2:
            vals = np.zeros(d)
        else:
            C, lam = graph.spectral_coefficients(k - 1)
            alpha = graph.transpose_dot_embedding(C).T * inv  # more columns: a whole null space
            lam = lam[:alpha.shape[0]]
            vals = ((2.0**power - lam**power)[:, None] * alpha**2).sum(axis=0)
        vals[bad] = -np.inf
        return vals
    C, lam = graph.full_spectrum()
    alpha2 = (graph.transpose_dot_embedding(C).T * inv) ** 2
    rest = np.maximum(1.0 - alpha2.sum(axis=0), 0.0)
    phi1 = np.maximum(((np.maximum(lam, 0.0) ** power)[:, None] * alpha2).sum(axis=0) + rest, 0.0)
    if scoring == "phi1":
        phi1[bad] = np.inf
        return phi1
    a1 = graph.col_sum * inv / np.sqrt(graph.n_samples)
    denom = 1.0 - a1**2
    bad2 = bad | (denom <= 1e-10)
    vals = np.full(d, np.inf)
    vals[~bad2] = phi1[~bad2] / denom[~bad2]
    return vals


class SPEC(BaseSelector):
    """Spectral feature selection (SPEC).

    A feature is good when it varies slowly on the similarity graph of the samples,
    that is when its normalised vector concentrates on the eigenvectors of the small
    eigenvalues of the normalised Laplacian (Zhao and Liu, ICML 2007 [1]_). Three
    scoring functions, phi1, phi2 and phi3, are available; ``scores_`` is higher for
    better features in all three, the paper's values are in ``spec_values_``.

    Sparse input is never densified; a dask array is accepted (on the anchor graph).

    Parameters
    ----------
    {n_features_to_select}
    scoring : {"phi1", "phi2", "phi3"}, default="phi2"
        The paper's scoring function (Eqs. 6, 8 and 9, see Notes).
    power : float, default=1.0
        r in ``gamma(lambda) = lambda^r``.
    n_clusters : int, default=5
        k of phi3.
    n_neighbors : int or None, default=5
        None: fully connected RBF kernel (the paper's graph).
    t : "mean", "median" or float, default="mean"
        Heat-kernel bandwidth.
    graph : {"auto", "knn", "anchor"}, default="auto"
        The sample graph: the k-NN graph (or the full kernel, ``n_neighbors=None``),
        or the anchor graph of ``n_anchors`` landmarks
        (:func:`ufsel.graph.anchor_graph`, linear in n_samples; each sample linked to
        its ``n_neighbors`` nearest landmarks, 5 when ``n_neighbors`` is None).
        ``"auto"``: the anchor graph for a dask array and from
        ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES`` samples of dense X, the k-NN graph otherwise.
    n_anchors : int, default=1000
        Number of landmarks of the anchor graph (at most n_samples).
    random_state : int, RandomState or None, default=None
        Seeds the eigensolver's start vector, the sample on which the bandwidth
        is estimated and the anchor graph's landmarks. Pass an int for
        reproducible results.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Higher is better (``-phi1``, ``-phi2`` or ``phi3``).
    spec_values_ : ndarray of shape (n_features,)
        The raw phi values.
    {selector_attributes}

    See Also
    --------
    LaplacianScore

    Notes
    -----
    With ``L^ = D^{-1/2} (D - S) D^{-1/2}`` and ``f^ = D^{1/2} f / ||D^{1/2} f||``
    (Section 3 of [1]_), :func:`spec_scores` computes

    - ``"phi1"`` (Eq. 6): ``f^T gamma(L^) f^``, smaller is better;
    - ``"phi2"`` (Eq. 8): phi1 divided by ``1 - (f^T xi_1)^2``, which removes the
      trivial component along ``xi_1``, smaller is better;
    - ``"phi3"`` (Eq. 9): ``sum_{j=2..k} (gamma(2) - gamma(lambda_j)) alpha_j^2``,
      larger is better.

    ``scores_`` is ``-phi`` for phi1 and phi2 and ``phi3`` itself. (scikit-feature
    ranks all three in the reverse of the paper's order; FSASL sorts all three
    descending, wrong for phi1 and phi2.)

    **Interpretations**:

    - The paper uses a fully connected RBF kernel. The default is a sparse k-NN
      heat-kernel graph (k = 5, Cai's mean-distance bandwidth), O(n k) in memory;
      ``n_neighbors=None`` gives the paper's full kernel
      ``exp(-||x_i - x_j||^2 / (2 t^2))`` (dense n x n, refused above 5000 samples).
    - The paper leaves gamma general (an increasing function penalising high
      frequencies); here ``gamma(lambda) = lambda^power`` (FSASL's ``expLam``). Integer
      powers need no eigendecomposition (``f^T L^r f^`` by r sparse products); other
      powers need the full one (n <= 5000).
    - phi3's k is ``n_clusters``, using ``xi_2 .. xi_k``: the k - 1 smallest
      eigenvectors of L^ orthogonal to the exact trivial vector
      ``xi_1 = D^{1/2} 1 / ||D^{1/2} 1||``, which is projected out of the operator
      before the eigensolve. On a disconnected graph the eigenvalue 0 is repeated,
      and dropping "the first computed eigenvector", as the reference code does,
      would discard an arbitrary vector of that eigenspace.
    - When a repeated eigenvalue of L^ straddles position k, no choice of k - 1
      eigenvectors is canonical: each of the r vectors of that eigenspace gets the
      weight s / r (s the slots left), the average over all choices, which does not
      depend on the basis the solver returns. Eigenvalues within 1e-8 of each other
      count as repeated.
    - Degenerate features (``D^{1/2} f = 0``; for phi2 also a constant feature, where
      ``1 - alpha_1^2 = 0``) are ranked last (the reference code gives them 1000 or
      -1000).

    Sparse X stays sparse: ``f^T L^r f^`` comes from r sparse products with the
    normalised affinity (each adds about k non-zeros per stored entry, so keep r
    small on very sparse data) and ``alpha_j`` from ``F^T xi_j``. On the anchor graph
    every power is exact from m x m and m x d reductions
    (:func:`spec_scores_anchor`; no n x n object). See the fidelity
    guide, `What each default follows
    <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] Z. Zhao, H. Liu. Spectral feature selection for supervised and
       unsupervised learning. ICML 2007.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from ufsel import SPEC
    >>> X, _ = load_digits(return_X_y=True)
    >>> SPEC(n_features_to_select=10).fit(X).transform(X).shape
    (1797, 10)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "scoring": [StrOptions(set(_LOWER_IS_BETTER))],
        "power": [Interval(Real, 0, None, closed="neither")],
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left"), None],
        "t": [StrOptions({"mean", "median"}), Interval(Real, 0, None, closed="neither")],
        "graph": [StrOptions(set(GRAPHS))],
        "n_anchors": [Interval(Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, n_features_to_select=None, *, scoring="phi2", power=1.0, n_clusters=5,
                 n_neighbors=5, t="mean", graph="auto", n_anchors=N_ANCHORS,
                 random_state=None):
        super().__init__(n_features_to_select=n_features_to_select)
        self.scoring = scoring
        self.power = power
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.t = t
        self.graph = graph
        self.n_anchors = n_anchors
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.supports_dask = True
        tags.selector_tags.sparse_native = True
        # phi1 and phi2 use the whole spectrum; only phi3 takes xi_2..xi_K
        tags.selector_tags.uses_n_clusters = self.scoring == "phi3"
        return tags

    def _memory_terms(self, shape):
        terms = super()._memory_terms(shape)
        if self.n_neighbors is None:
            return {**terms, **square_term(shape.n, 3, "dense RBF kernel"),
                    **eigen_terms(shape.n, shape.n)}
        return {**terms, **spectral_terms(shape, self, self.n_clusters + 1)}

    def _fit(self, X):
        name = type(self).__name__
        n = X.shape[0]
        # n_clusters counts eigenvectors only with phi3; n_neighbors=None is a dense kernel
        rng = self._start_fit(X, n_clusters=self.n_clusters if self.scoring == "phi3" else False)
        if resolve_graph(self.graph, X) == "anchor":
            g = anchor_graph(X, self.n_anchors, self.n_neighbors or 5, random_state=rng)
            vals = spec_scores_anchor(g, scoring=self.scoring, power=self.power,
                                      n_clusters=self.n_clusters)
        elif self.n_neighbors is None:
            if n > SPEC_DENSE_MAX:
                raise ValueError(
                    f"{name} with n_neighbors=None builds a dense {n} x {n} RBF kernel (limit "
                    f"n <= {SPEC_DENSE_MAX}). Pass an integer n_neighbors for a sparse k-NN graph."
                )
            t = heat_kernel_bandwidth(X, self.t, random_state=rng) if isinstance(self.t, str) else self.t
            if sparse.issparse(X):  # scipy's sqeuclidean does not take sparse input
                D2 = np.maximum(euclidean_distances(X, squared=True), 0.0)
            else:
                D2 = pairwise_distances(X, metric="sqeuclidean")
            vals = spec_scores(X, np.exp(-D2 / (2.0 * t**2)), scoring=self.scoring,
                               power=self.power, n_clusters=self.n_clusters, random_state=rng)
        else:
            vals = spec_scores(X, self._knn_affinity(X, rng, weight="heat"),
                               scoring=self.scoring, power=self.power,
                               n_clusters=self.n_clusters, random_state=rng)
        self.spec_values_ = vals
        scores = -vals if _LOWER_IS_BETTER[self.scoring] else vals.copy()
        finite = np.isfinite(scores)
        if not finite.all():  # degenerate features: strictly below every real score
            low = scores[finite].min() if finite.any() else 0.0
            scores[~finite] = low - 1.0 - abs(low)
        return scores
