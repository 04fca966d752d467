"""UDFS: l2,1-norm regularised discriminative feature selection (Yang et al., IJCAI 2011)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy import sparse
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import CLUSTER_GRAPH_CONSTRAINTS, ITERATIVE_CONSTRAINTS, ObjectiveTracker
from ...base import BaseSelector
from ...graph import knn_graph
from ...graph._memory import local_learning_terms
from ...linalg import (
    DENSE_SMALLEST_MAX,
    KyFanStep,
    RowSpaceQuadratic,
    centered_gram,
    check_gram_size,
    ky_fan_smallest,
    l2p_norm,
    l2p_norm_from_sq,
    l2p_reweight_from_sq,
    local_gram,
    resolve_eigen_method,
    row_norms_sq,
    smallest_eigvecs,
)

__all__ = ["UDFS", "udfs_local_scatter", "udfs_objective"]

_EPS = 2.220446049250313e-16


def udfs_local_scatter(X, n_neighbors=5, *, reg=1e3):
    """The sparse n x n matrix ``L = sum_i S_(i) H B_i H S_(i)^T`` of UDFS.

    For each sample i, ``X_i = [x_i, x_i1, ..., x_ik]`` is the sample and its
    k nearest neighbours (``k + 1`` points), ``H = I - 11^T / (k+1)`` centres
    them, ``X~_i = X_i H`` and ``B_i = (X~_i^T X~_i + reg I)^{-1}`` (the
    ``(k+1) x (k+1)`` form of the regularised local total scatter).
    ``S_(i)`` is the n x (k+1) selection matrix with ``(S_(i))_{pq} = 1`` iff
    p is the q-th point of the i-th neighbourhood, so ``S_(i) A S_(i)^T``
    scatters ``A`` into rows/columns ``idx_i``. All n blocks are computed as
    one batched stack (O(n k^2 d + n k^3)) and summed into a sparse matrix with
    at most ``n (k+1)^2`` entries.

    Returns
    -------
    L : scipy.sparse.csr_matrix of shape (n, n), symmetric PSD
    """
    n = X.shape[0]
    _, ind = knn_graph(X, n_neighbors)
    idx = np.hstack([np.arange(n)[:, None], ind])
    m = n_neighbors + 1
    Gc = centered_gram(local_gram(X, idx))
    Gc[:, np.arange(m), np.arange(m)] += reg
    B = np.linalg.inv(Gc)
    HBH = centered_gram(0.5 * (B + B.transpose(0, 2, 1)))
    rows = np.broadcast_to(idx[:, :, None], HBH.shape).ravel()
    cols = np.broadcast_to(idx[:, None, :], HBH.shape).ravel()
    L = sparse.coo_matrix((HBH.ravel(), (rows, cols)), shape=(n, n)).tocsr()
    L.sum_duplicates()
    return L


def udfs_objective(W, M, gamma, eps=_EPS):
    """``Tr(W^T M W) + gamma ||W||_{2,1}``, the UDFS objective, the l2,1 norm smoothed by ``eps``."""
    return float(np.sum(W * (M @ W))) + gamma * l2p_norm(W, 1.0, eps)


class UDFS(BaseSelector):
    """Unsupervised Discriminative Feature Selection (UDFS).

    Finds an orthonormal projection W that maximises the local discriminative score
    of every sample's k-NN neighbourhood, with an l2,1 penalty that makes W
    row-sparse (Yang, Shen, Ma, Huang and Zhou, IJCAI 2011 [1]_). Features are ranked
    by the squared row norms of W.

    Sparse input is never densified. The objective is not scale invariant: standardise
    the features first when they have different units or constant parts.

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of columns of W (the number of clusters). At most the
        number of features: W has orthonormal columns, so c > d is undefined
        and refused with a ValueError.
    n_neighbors : int, default=5
        k, neighbours of each local set.
    gamma : float, default=1.0
        Weight of the l2,1 norm.
    reg : float, default=1000.0
        lambda, the regulariser of the local total scatter.
    max_iter : int, default=50
        Maximum number of iterations.
    tol : float, default=1e-4
        Relative objective change at which iteration stops.
    eigen_solver : {"auto", "dense", "arpack", "lobpcg"}, default="auto"
        ``"auto"``: exact dense LAPACK up to d = 4096, warm-started LOBPCG with
        checked residuals above; when d > n, ARPACK through the Woodbury
        identity after the first step (see above); ``"dense"``, ``"arpack"`` (machine
        precision), ``"lobpcg"`` (warm-started, residuals checked, exact
        fallback): that solver in every iteration.
    random_state : int, RandomState or None, default=None
        Seeds the iterative eigensolver's start vector (d > 4096, or an
        iterative ``eigen_solver``).
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^i||^2``; the diagonal of the averaged ``Pi`` when the last step
        was tied.
    W_ : ndarray of shape (n_features, n_clusters)
        The last step's eigenvectors; when that step was tied, one member of
        the tied family (not determined by the data, unlike ``scores_``).
    tied_ : bool
        Whether the last step's c-th eigenvalue was tied.
    objective_ : ndarray of shape (`n_iter_`,)
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    NDFS, MCFS

    Notes
    -----
    **Objective** (X of shape (n, d), samples in rows)::

        min_{W^T W = I}  Tr(W^T M W) + gamma ||W||_{2,1},
        M = X^T L X,  L = sum_i S_(i) H (X~_i^T X~_i + lambda I)^{-1} H S_(i)^T

    where ``S_(i)`` selects the neighbourhood of sample i and ``X~_i`` its centred
    data: each neighbourhood's discriminative score ``Tr[(S_t^(i) + lambda I)^{-1}
    S_b^(i)]`` with the cluster indicator ``G = X W``. The solver alternates W = the c
    eigenvectors of the smallest eigenvalues of ``M + gamma D`` and
    ``D_ii = 1 / (2 sqrt(||w^i||^2 + eps))``; each step minimises a majoriser, so
    ``objective_`` decreases monotonically. The objective, M and the solver follow
    Yi Yang's code (``LocalDisAna.m``, ``LquadR21_reg.m``, ``fs_unsup_udfs.m``, in
    AutoUFSTool and FSASL); the equation numbers of the paper are not quoted because
    its text was not available for checking.

    **Interpretations and deviations** from the authors' code:

    - ``lambda`` (``reg``) and ``gamma`` are separate parameters, as in the paper;
      ``reg`` defaults to the code's 1000. (scikit-feature reuses gamma as lambda and
      mis-indexes ``S_(i)``.)
    - The neighbourhood is the sample and its k nearest other samples, as
      ``LocalDisAna.m``; ``(X~_i^T X~_i + lambda I)^{-1}`` is used for every
      neighbourhood (the code switches to a differently scaled Woodbury form when
      d <= k).
    - M is symmetrised as ``(M + M^T) / 2`` (the code takes ``max(M, M^T)``); D starts
      at the identity; the l2,1 norm is smoothed with eps = machine epsilon in the
      reweighting and in ``objective_``; iteration stops on a relative change below
      ``tol`` (the code runs 20 iterations).
    - A tied c-th eigenvalue: when the c-th smallest eigenvalue of ``M + gamma D``
      equals the (c+1)-th, the c eigenvectors are not determined. This always happens
      in the first step when d > n (M then has a null space of dimension at least
      d - n + 1). In such a step ``W W^T`` is replaced by its average over the tied
      eigenspace, ``Pi = U_below U_below^T + ((c - lo) / m) U_E U_E^T`` (lo eigenvalues
      below the tie, m tied; :func:`ufsel.linalg.ky_fan_smallest`), the one minimiser
      on the Fantope that no rotation of the tied eigenspace changes; D, the scores
      and the objective come from Pi, and the monotone decrease still holds (Ky Fan's
      theorem). Eigenvalues within ``1e-10 ||P||_F`` count as tied. Without a tie
      every step is the authors' step. The average favours features barely present in
      X's row space, which the objective rewards; the fidelity guide's
      `Round-off section <../../guide/fidelity.html#round-off-results-that-follow-the-data-not-the-arithmetic>`__
      discusses the effect.
    - The eigensolver (``eigen_solver``, :func:`ufsel.linalg.smallest_eigvecs`) is
      exact dense LAPACK up to d = 4096 when d <= n, and above that LOBPCG
      warm-started from the previous W, with checked residuals and an exact fallback.

    **Wide data** (d > n): the first step is solved on the row space of the centred
    X (an n x n Gram matrix and an r x r eigenproblem). Later steps, when d is at
    least twice the rank r, find the c + 1 smallest eigenpairs of
    ``M + gamma D = gamma D + Q K Q^T`` by ARPACK on its inverse, applied through the
    Woodbury identity in O(d r) per product
    (:func:`ufsel.linalg.ky_fan_smallest_diag_low_rank`), with a dense fallback; M is
    then never formed, so wide data is not limited by the d x d size limit.

    **Cost**: a sparse k-NN graph, n batched ``(k+1) x (k+1)`` inversions, a sparse L
    with ``n (k+1)^2`` entries, the d x d matrix M when a dense step needs it, and one
    partial eigensolve per iteration. See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] Y. Yang, H. T. Shen, Z. Ma, Z. Huang, X. Zhou. l2,1-norm regularized
       discriminative feature selection for unsupervised learning. IJCAI 2011.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from ufsel import UDFS
    >>> X, _ = load_digits(return_X_y=True)
    >>> UDFS(n_features_to_select=10, n_clusters=10).fit(X).transform(X).shape
    (1797, 10)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        **CLUSTER_GRAPH_CONSTRAINTS,
        **ITERATIVE_CONSTRAINTS,
        "gamma": [Interval(Real, 0, None, closed="left")],
        "reg": [Interval(Real, 0, None, closed="neither")],
        "eigen_solver": [StrOptions({"auto", "dense", "arpack", "lobpcg"})],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_neighbors=5, gamma=1.0,
                 reg=1000.0, max_iter=50, tol=1e-4, eigen_solver="auto", random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.gamma = gamma
        self.reg = reg
        self.max_iter = max_iter
        self.tol = tol
        self.eigen_solver = eigen_solver
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        return {**super()._memory_terms(shape),
                **local_learning_terms(shape, self.n_neighbors, "local scatter L")}

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        rng = self._start_fit(X, n_clusters=False)  # n_clusters is bounded by d, below
        if self.n_clusters > d:
            raise ValueError(
                f"{name} needs n_clusters <= n_features, got n_clusters={self.n_clusters} with "
                f"{d} features. Pass n_clusters <= {d}."
            )
        L = udfs_local_scatter(X, self.n_neighbors, reg=self.reg)
        M = None

        def gram():
            """M = X^T L X (d x d), formed on first use: by every dense step (each step
            when d <= n); when d > n the first step and the Woodbury steps need only K."""
            nonlocal M
            if M is None:
                check_gram_size(d, name)
                M = X.T @ (L @ X)
                M = M.toarray() if sparse.issparse(M) else np.asarray(M)
                M = 0.5 * (M + M.T)
            return M

        dense = resolve_eigen_method(self.eigen_solver, d, False, DENSE_SMALLEST_MAX) == "dense"
        # d > n: M's range lies in the row space of the centred X (L 1 = 0), M = B K B^T
        wide = RowSpaceQuadratic(X) if d > n else None
        if wide is not None:
            K = wide.reduced(L)
        woodbury = (wide is not None and self.gamma > 0 and self.eigen_solver == "auto"
                    and wide.woodbury_pays_off())
        g = np.ones(d)
        W = None
        track = ObjectiveTracker(name, self.max_iter, self.tol, "gamma or reg", verbose=self.verbose)
        for it in range(self.max_iter):
            step = None
            if it == 0 and wide is not None:  # D = I
                step = wide.first_step(K, self.gamma, self.n_clusters)
            elif woodbury:
                step = wide.step(K, self.gamma * g, self.n_clusters)
            if step is None:
                P = _plus_diagonal(gram(), self.gamma * g)
                if dense:
                    step = ky_fan_smallest(P, self.n_clusters)
                else:
                    V = smallest_eigvecs(P, self.n_clusters, method=self.eigen_solver, Y0=W,
                                         dense_max=DENSE_SMALLEST_MAX, random_state=rng,
                                         owner=name)
                    step = KyFanStep(V, row_norms_sq(V), np.nan, False)
            W, pi = step.vectors, step.weights
            if W is not None and not step.tied and d <= n:
                objective = udfs_objective(W, gram(), self.gamma)
            elif W is not None and not step.tied:  # Tr(W^T M W) from the n x c product X W
                XW = np.asarray(X @ W)
                objective = (float(np.sum(XW * (L @ XW)))
                             + self.gamma * l2p_norm_from_sq(pi, 1.0, _EPS))
            else:  # at Pi: Tr(M Pi) = Tr(P Pi) - gamma g . diag(Pi)
                objective = (step.trace - self.gamma * float(np.dot(g, pi))
                             + self.gamma * l2p_norm_from_sq(pi, 1.0, _EPS))
            g = l2p_reweight_from_sq(pi, 1.0, _EPS)  # at the squared row norms diag(Pi)
            if track.append(objective):
                break
        self.objective_ = track.finish()
        self.n_iter_ = track.n_iter
        self.tied_ = bool(step.tied)
        if W is None:  # one iteration on the row space: a member of the tied family
            P = _plus_diagonal(gram(), np.full(d, float(self.gamma)))
            W = smallest_eigvecs(P, self.n_clusters, method=self.eigen_solver,
                                 dense_max=DENSE_SMALLEST_MAX, random_state=rng, owner=name)
        self.W_ = W
        return pi


def _plus_diagonal(M, v):
    """``M + diag(v)`` as a new array."""
    P = M.copy()
    P[np.diag_indices_from(P)] += v
    return P
