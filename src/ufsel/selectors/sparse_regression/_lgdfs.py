"""LGDFS: Local and Global Discriminative learning for unsupervised Feature Selection (ICDM 2013)."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import linalg
from scipy.sparse import linalg as splinalg
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.extmath import randomized_svd

from ..._iterate import CLUSTER_GRAPH_CONSTRAINTS, ITERATIVE_CONSTRAINTS, ObjectiveTracker
from ...base import BaseSelector, densify
from ...graph import (
    ANCHOR_GRAPH_MIN_SAMPLES,
    GRAPHS,
    N_ANCHORS,
    NEIGHBORS_ALGORITHMS,
    global_discriminative_laplacian,
    local_discriminative_laplacian,
    local_regions,
    refine_neighbors,
    resolve_graph,
    resolve_neighbors_algorithm,
    weighted_knn_graph,
)
from ...graph._memory import anchor_terms, eigen_terms, knn_terms
from ...linalg import DENSE_EIGH_MAX, partial_eigh
from ...utils._memory import (
    dense_copy_term,
    densified,
    embedding_term,
    gram_term,
    local_terms,
    ridge_term,
    square_term,
)
from ._lgdfs_anchor import fit_anchor
from ._lgdfs_steps import lgdfs_z_step, local_regression_norms

__all__ = [
    "LGDFS",
    "lgdfs_objective",
    "lgdfs_embedding",
    "lgdfs_regression_norms",
    "lgdfs_z_step",
]


def _laplacians(X, z, regions, lambda_global, lambda_local, product_dtype=None):
    Xz = X * np.sqrt(z)
    L_l, blocks = local_discriminative_laplacian(Xz, regions, lambda_local, return_blocks=True)
    L_g, A, inv = global_discriminative_laplacian(X, z, lambda_global, return_parts=True,
                                                  product_dtype=product_dtype)
    return L_l, L_g, inv, blocks


def lgdfs_objective(X, Y, z, regions, alpha, lambda_global, lambda_local):
    """The LGDFS objective, Eq. (8): ``tr(Y^T L_l Y) + alpha tr(Y^T L_g Y)``.

    With the typo corrections of the reading notes on the paper: ``diag(z)`` inside both Laplacians
    (Eqs. 5-6), H the n x n centring matrix.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_clusters)
    z : ndarray of shape (n_features,)
        Feature weights.
    regions : ndarray of shape (n_samples, k)
        Local regions (:func:`ufsel.graph.local_regions`), the neighbourhoods
        in use.
    alpha, lambda_global, lambda_local : float

    Returns
    -------
    value : float
    """
    L_l, L_g, _, _ = _laplacians(X, z, regions, lambda_global, lambda_local)
    return float(np.sum(Y * (L_l @ Y)) + alpha * np.sum(Y * (L_g @ Y)))


def lgdfs_embedding(L_l, L_g, alpha, n_clusters, *, eigen_solver="auto", tol=1e-6,
                    random_state=None, Y0=None):
    """Y-step, Eq. (11): the eigenvectors of the c smallest eigenvalues of ``L_l + alpha L_g``.

    The constant vector is in the null space of both Laplacians; it carries
    no cluster information and the regressions (Eq. 12) centre Y anyway, so it
    is deflated: the eigenproblem is solved for
    ``L_l + alpha L_g + sigma 1 1^T / n`` with sigma above the spectrum
    (Gershgorin bound of ``L_l`` plus alpha, since ``L_g <= I``), which moves
    the constant vector to the top and leaves the other eigenpairs unchanged.
    ``tol`` is the iterative solver's relative accuracy of the eigenvalues.

    Solvers. ``eigen_solver="dense"``, ``"arpack"`` or ``"lobpcg"`` solve from
    scratch (:func:`ufsel.linalg.partial_eigh`; ARPACK works on single
    vectors, so each of its many products with ``L_g`` is a BLAS-2 pass over
    the n x d data). ``"auto"`` is dense LAPACK up to
    ``ufsel.linalg.DENSE_EIGH_MAX`` samples; above it, a block LOBPCG
    started from ``Y0`` (at most 20 iterations, residuals not checked), whose
    products are BLAS-3 and which, started from the previous outer
    iteration's Y, needs few iterations; its result never has a larger
    ``Tr(Y^T (L_l + alpha L_g) Y)`` than the start. In the first outer
    iteration :class:`LGDFS` starts it from the c leading principal
    component scores of ``X diag(sqrt z)``, which are exactly the c smallest
    non-constant eigenvectors of ``L_g`` (the eigenvalues of
    ``(I + A A^T / lambda)^{-1}`` are smallest along the leading left
    singular vectors of A); without ``Y0`` the start is random.

    Returns
    -------
    Y : ndarray of shape (n_samples, n_clusters)
        Orthonormal, orthogonal to the constant vector.
    eigenvalues : ndarray of shape (n_clusters,)
        Ritz values (eigenvalues when the solver converged).
    """
    n = L_l.shape[0]
    sigma = float(abs(L_l).sum(axis=1).max()) + alpha + 1.0

    def deflated(V):  # (L_l + alpha L_g + sigma 1 1^T / n) V
        V = np.asarray(V).reshape(n, -1)
        return L_l @ V + alpha * (L_g @ V) + sigma * V.mean(axis=0)

    if eigen_solver == "auto" and n > DENSE_EIGH_MAX and n > 5 * n_clusters:
        op = _operator(n, deflated)
        if Y0 is None:
            Y0 = check_random_state(random_state).standard_normal((n, n_clusters))
        Y = _lobpcg_step(op, Y0 - Y0.mean(axis=0), tol=1e-5, maxiter=20)
        Y = Y - Y.mean(axis=0)  # exact orthogonality to the constant vector
        Y, _ = np.linalg.qr(Y)
        w = np.einsum("ij,ij->j", Y, deflated(Y))
        order = np.argsort(w)
        return Y[:, order], w[order]

    # Largest eigenpairs of sigma I - M (same Krylov spaces as the smallest of M; ARPACK's
    # "LA" mode converges faster than "SA" here).
    op = _operator(n, lambda V: sigma * np.asarray(V).reshape(n, -1) - deflated(V))
    w, Y = partial_eigh(op, n_clusters, which="largest", method=eigen_solver, tol=tol,
                        random_state=random_state)
    return Y[:, ::-1], (sigma - w)[::-1]


def _lobpcg_step(op, Y0, *, tol, maxiter):
    """At most ``maxiter`` block-LOBPCG iterations from Y0: an inexact Y-step by design.

    The outer loop continues the refinement, so the residuals are not checked
    and nothing falls back to an exact solver (an ARPACK solve with the n x d
    products of ``L_g`` would cost more than the rest of the iteration); the
    returned block never has a larger ``Tr(Y^T A Y)`` than the orthonormalised
    start, which the descent of Algorithm 1 needs.
    """
    Q, _ = linalg.qr(Y0, mode="economic")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LOBPCG's "not reached tol": expected here
        w, Y = splinalg.lobpcg(op, Q.copy(), largest=False, tol=tol, maxiter=maxiter)
    Y, _ = linalg.qr(Y[:, np.argsort(w)], mode="economic")
    if not np.all(np.isfinite(Y)) or np.sum(Y * (op @ Y)) > np.sum(Q * (op @ Q)):
        return Q
    return Y


def _operator(n, matmat):
    """A symmetric n x n LinearOperator from its block product."""
    return splinalg.LinearOperator((n, n), matvec=lambda v: matmat(v).ravel(), matmat=matmat,
                                   rmatvec=lambda v: matmat(v).ravel(), dtype=np.float64)


def lgdfs_regression_norms(X, Y, z, regions, alpha, lambda_global, lambda_local, *,
                           inverse=None, local_blocks=None):
    """The regressions of Eq. (12) and the per-feature norms ``||W_bar_j||^2`` of Eq. (14).

    For each region i (k x k, batched): ``W_i = diag(z) X_i H_i (lambda_i I + K_i)^{-1} Y_i``
    (Eq. 12 simplified with ``I - (lambda I + K)^{-1} K = lambda (lambda I + K)^{-1}``),
    and globally ``W = diag(z) X H (lambda I + K)^{-1} Y`` with ``K = H X^T diag(z) X H``
    applied through the Woodbury operator.

    When Y has more columns than a region has points (c > k), the local norms are
    not formed region by region: with
    ``R_i = (lambda_i I + K_i)^{-1} H_i Y_i = L_i Y_i / lambda_i`` (``L_i`` the blocks
    of the local Laplacian, Eq. 6) and ``M = sum_i S_i R_i R_i^T S_i^T`` (sparse, the
    assembly of Eq. 7), ``sum_i ||(W_i)_j||^2 = z_j^2 x_j^T M x_j``: O(n k^2 c + nnz(M) d)
    instead of O(n k d c). Otherwise each region's ``diag(sqrt z) X_i^T H_i R_i`` is
    formed (the same quantity, rounded differently).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    Y : ndarray of shape (n_samples, n_clusters)
    z : ndarray of shape (n_features,)
    regions : ndarray of shape (n_samples, k)
    alpha, lambda_global, lambda_local : float
    inverse : LinearOperator, optional
        ``(I + A A^T / lambda)^{-1}`` from
        :func:`ufsel.graph.global_discriminative_laplacian` at this z (computed
        if None).
    local_blocks : ndarray of shape (n_samples, k, k), optional
        The blocks ``L_i`` of :func:`ufsel.graph.local_discriminative_laplacian`
        at this z and these regions (computed if None).

    Returns
    -------
    wbar_sq : ndarray of shape (n_features,)
        ``sum_i lambda_i ||(W_i)_j||^2 + alpha lambda ||W_j||^2``.
    fit : float
        The squared residuals of Eq. (9) at these W_i, W (with the optimal
        biases), ``sum_i lambda_i^2 ||R_i||^2 + alpha lambda^2 ||R||^2``
        where ``R_i = (lambda_i I + K_i)^{-1} H_i Y_i``.
    """
    wbar_sq, fit = local_regression_norms(X, Y, z, regions, lambda_local,
                                          local_blocks=local_blocks)
    lam_g = lambda_global
    sqz = np.sqrt(z)
    Xc = X - X.mean(axis=0)
    # Global model: R = (lam I + K)^{-1} H Y = (1/lam) (I + K/lam)^{-1} H Y.
    if inverse is None:
        _, _, inverse = global_discriminative_laplacian(X, z, lam_g, return_parts=True)
    HY = Y - Y.mean(axis=0)
    Rg = (inverse @ HY) / lam_g
    Tg = (Xc * sqz).T @ Rg  # diag(sqrt z) X H R
    wbar_sq += alpha * lam_g * z * np.einsum("dc,dc->d", Tg, Tg)
    fit += alpha * lam_g**2 * float(np.sum(Rg * Rg))
    return wbar_sq, fit


class LGDFS(BaseSelector):
    """Local and Global Discriminative learning for unsupervised Feature Selection (LGDFS).

    Learns feature weights z on the simplex such that a spectral embedding Y is well
    predicted both by one global and by many local ridge regressions on the
    z-weighted data; the neighbourhoods are recomputed in the z-weighted distance at
    every iteration (Du, Shen, Li, Zhou and Shen, ICDM 2013 [1]_). Features are
    ranked by z.

    Requires dense X (sparse input is densified if it fits in memory).

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of columns of Y (the number of clusters).
    alpha : float, default=1.0
        Weight of the global term.
    lambda_global : float, default=1.0
        lambda, the ridge parameter of the global regression.
    lambda_local : float, default=1.0
        lambda_i, the ridge parameter of every local regression.
    n_neighbors : int, default=5
        Neighbours per local region (the sample itself excluded).
    max_iter : int, default=30
        Maximum number of iterations.
    tol : float, default=1e-3
        Relative change of ``objective_`` at which iterations stop (the paper
        gives no criterion; 1e-3 is the rate of the released RSFS code by
        the same group).
    eigen_solver : {"auto", "dense", "arpack", "lobpcg"}, default="auto"
        See :func:`ufsel.linalg.partial_eigh`.
    neighbors_algorithm : {"auto", "exact", "approximate", "hnsw", "nndescent", "brute", \
"kd_tree", "ball_tree"}, default="auto"
        The neighbour search of the regions (Eq. 10). An exact search runs
        afresh in every iteration. An approximate one (see
        :func:`ufsel.graph.knn_graph`) searches in the first iteration only;
        every later iteration warm-starts from the previous regions with one
        round of NN-descent's local join in the new metric
        (:func:`ufsel.graph.refine_neighbors`, O(n k^2 d)). ``"auto"`` is
        exact below ``ufsel.graph.APPROX_NEIGHBORS_MIN_SAMPLES`` samples (or
        with few features, or without an approximate backend) and approximate
        above (:func:`ufsel.graph.resolve_neighbors_algorithm`).
    graph : {"auto", "knn", "anchor"}, default="auto"
        ``"knn"``: the paper's form, a region around every sample.
        ``"anchor"``: the anchor form (see Notes), linear in the number of
        samples. ``"auto"`` is ``"anchor"`` from
        ``ufsel.graph.ANCHOR_GRAPH_MIN_SAMPLES`` samples and ``"knn"`` below
        (:func:`ufsel.graph.resolve_graph`).
    n_anchors : int, default=1000
        Number of anchors m of the anchor form.
    random_state : int, RandomState or None, default=None
        Seeds the eigensolver's start vectors, the approximate neighbour
        search and the anchors.
    {verbose}

    Attributes
    ----------
    feature_weights_ : ndarray of shape (n_features,)
        z, on the simplex.
    scores_ : ndarray of shape (n_features,)
        Equal to ``feature_weights_``.
    embedding_ : ndarray of shape (n_samples, n_clusters)
        Y of the last iteration.
    anchor_embedding_ : ndarray of shape (n_anchors, n_clusters)
        The anchor form's coefficients C (``Y = Z C``); in the anchor form only.
    objective_ : ndarray of shape (`n_iter_`,)
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    RSFS, MCFS

    Notes
    -----
    **Objective** (Eq. 8 of [1]_)::

        min  tr(Y^T L_l Y) + alpha tr(Y^T L_g Y)   s.t. Y^T Y = I, z >= 0, sum(z) = 1

    with ``L_g = H (I + (1/lambda) H X diag(z) X^T H)^{-1} H`` (Eq. 5) and
    ``L_l = sum_i S_i L_i S_i^T``,
    ``L_i = H_i (I + (1/lambda_i) H_i X_i diag(z) X_i^T H_i)^{-1} H_i`` (Eqs. 6-7), on
    the k-NN regions in the z-weighted distance (Eq. 10); X has one sample per row.

    **Algorithm 1**: z = 1/d, then repeat

    1. regions: each sample and its ``n_neighbors`` nearest neighbours in the distance
       ``sqrt(sum_j z_j (x_j - x'_j)^2)`` (Eq. 10)
       (:func:`ufsel.graph.weighted_knn_graph`; with an approximate search, the
       previous regions refined by a local join after the first iteration);
    2. L_l (Eq. 7) from n stacked k x k solves, sparse
       (:func:`ufsel.graph.local_discriminative_laplacian`);
    3. L_g (Eq. 5) as a linear operator through the Woodbury identity, never formed
       (:func:`ufsel.graph.global_discriminative_laplacian`);
    4. Y = the c smallest non-trivial eigenvectors of ``L_l + alpha L_g`` (Eq. 11)
       (:func:`lgdfs_embedding`);
    5. W_i and W by Eq. (12) (:func:`lgdfs_regression_norms`);
    6. z by Eq. (14), ``z_j = ||W_bar_j|| / sum_j' ||W_bar_j'||`` with
       ``||W_bar_j||^2 = sum_i lambda_i ||(W_i)_j||^2 + alpha lambda ||W_j||^2``, the
       exact minimiser over the simplex (:func:`lgdfs_z_step`).

    **Interpretations and corrections** of the paper:

    - H is the n x n centring matrix ``I - 11^T / n`` (the text says 1/d).
    - ``diag(z)`` (not ``diag(z^{-1})``, a typo of Eq. 8) inside the Laplacians;
      ``diag(z^{-1})`` in the regulariser of Eq. (9).
    - Eq. (10) is the weighted Euclidean distance (the printed
      ``sqrt(x^T diag(z) x')`` is a typo).
    - The paper's region holds x_i and its k - 1 nearest neighbours; here it holds
      x_i and its ``n_neighbors`` nearest neighbours (the paper's k = 5 is
      ``n_neighbors=4``; throughout ufsel ``n_neighbors`` excludes the sample itself).
    - One parameter ``lambda_local`` for every lambda_i.
    - Eq. (12) is used in the form ``W_i = diag(z) X_i^T H_i (lambda_i I + K_i)^{-1} Y_i``
      (``I - (lambda I + K)^{-1} K = lambda (lambda I + K)^{-1}``).
    - The constant eigenvector (eigenvalue 0 of both Laplacians) is excluded from Y:
      the centred regressions ignore it, so it would waste one of the c columns.
    - ``objective_`` records, after each z-step, Eq. (9) at the current W_i, W and z
      (by Theorem 1, Eq. 9 minimised over W equals Eq. 8). With fixed neighbourhoods
      each step decreases Eq. (8); recomputing the neighbourhoods can increase it, as
      the paper accepts. Iterations stop when its relative change falls below ``tol``
      (the paper gives no criterion).

    **Anchor form** (``graph="anchor"``, and ``"auto"`` from
    ``ANCHOR_GRAPH_MIN_SAMPLES`` samples). Y is restricted to the span of the anchor
    graph ``Z`` (n x m, each row the kernel weights of a sample's ``n_neighbors``
    nearest of m k-means anchors, :func:`ufsel.graph.anchor_graph`): ``Y = Z C``, as
    in landmark-based spectral clustering. Exact, for such Y: the constraints
    (``C^T Z^T Z C = I``, ``1^T Z C = 0``), the global term
    ``tr(Y^T L_g Y) = tr(C^T M_g C)`` with
    ``M_g = (HZ)^T HZ - Q^T (lambda I + G)^{-1} Q``, ``Q = diag(sqrt z) X^T H Z``,
    ``G = diag(sqrt z) X^T H X diag(sqrt z)`` (Woodbury), and the global regression
    of Eq. (12) and its norms, all from ``X^T X``, ``Z^T X`` and ``Z^T Z``, reduced
    once. Approximated: the local term is that of the regions (Eq. 10, recomputed in
    every iteration) of r = 2 m rows sampled once (seeded), each region's points the
    sampled row and its nearest sampled rows, weighted by n / r so that they stand for
    the n regions of the paper: ``(n / r) tr(Y_r^T L_r Y_r)`` with ``Y_r = Z_r C``,
    and the same weighting of the local regressions in the z-step. Regions built on
    the anchors themselves (k-means centres, whose noise is averaged out) were tried
    and mis-ranked the planted features, so the local regressions keep real samples.
    The Y-step is a dense generalized m x m eigenproblem (exact in the span of Z);
    the z-step is Eq. (14). ``objective_`` records Eq. (9) of this form. Why: the
    paper's form needs each sample's neighbours (a search that grows faster than n)
    and n x n Laplacians; here, after the anchor graph (k-means on a row sample and
    ``n m d`` flops), an iteration costs O(r k d + m^2 d + m d^2 + d^3 + m^3),
    independent of n. The anchor graph is built in the unweighted metric and not
    rebuilt as z changes.

    Each iteration costs a k-NN search, n k x k solves, an O(n d^2 + d^3) Woodbury
    factorisation (O(n^2 d + n^3) when d > n), a partial eigensolver with
    O(nnz(L_l) + n d) per product and O(n k d min(c, k) + n d c) for the
    regressions: when c exceeds the region size k, the local ones reuse the blocks
    of L_l (``(lambda_i I + K_i)^{-1} H_i = L_i / lambda_i``) and their norms are
    the quadratic forms ``z_j^2 x_j^T M x_j`` of one sparse matrix
    ``M = sum_i S_i R_i R_i^T S_i^T`` assembled like L_l, instead of the n
    products ``X_i^T H_i R_i`` with c columns each. Above
    ``ufsel.linalg.DENSE_EIGH_MAX`` samples (``eigen_solver="auto"``) the Y-step is a
    warm-started block LOBPCG (at most 20 block iterations per outer iteration,
    residual tolerance 1e-5, the outer loop continuing the refinement), the products
    of ``L_g`` with the data use a single-precision copy of it (relative error about
    1e-7), the neighbour search is warm-started, and no dense n x n matrix is formed
    when d <= n. The exact neighbour search costs O(n^2 d) per iteration and
    dominates from a few thousand samples; the approximate one (the default from
    ``APPROX_NEIGHBORS_MIN_SAMPLES`` samples) costs one approximate search plus
    O(n k^2 d) per later iteration. No public code of the authors exists; the default follows the paper
    (fidelity guide, `What each default follows
    <../../guide/fidelity.html#what-each-default-follows>`__).

    References
    ----------
    .. [1] L. Du, Z. Shen, X. Li, P. Zhou, Y.-D. Shen. Local and global
       discriminative learning for unsupervised feature selection. ICDM 2013.

    Examples
    --------
    >>> from ufsel import LGDFS
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, y, informative = make_planted_clusters(random_state=0)
    >>> sel = LGDFS(n_features_to_select=5, n_clusters=4, random_state=0).fit(X)
    >>> sel.transform(X).shape
    (200, 5)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        **CLUSTER_GRAPH_CONSTRAINTS,
        **ITERATIVE_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "lambda_global": [Interval(Real, 0, None, closed="neither")],
        "lambda_local": [Interval(Real, 0, None, closed="neither")],
        "eigen_solver": [StrOptions({"auto", "dense", "arpack", "lobpcg"})],
        "neighbors_algorithm": [StrOptions(set(NEIGHBORS_ALGORITHMS))],
        "graph": [StrOptions(set(GRAPHS))],
        "n_anchors": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, alpha=1.0, lambda_global=1.0,
                 lambda_local=1.0, n_neighbors=5, max_iter=30, tol=1e-3, eigen_solver="auto",
                 neighbors_algorithm="auto", graph="auto", n_anchors=N_ANCHORS, random_state=None,
                 verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.alpha = alpha
        self.lambda_global = lambda_global
        self.lambda_local = lambda_local
        self.n_neighbors = n_neighbors
        self.max_iter = max_iter
        self.tol = tol
        self.eigen_solver = eigen_solver
        self.neighbors_algorithm = neighbors_algorithm
        self.graph = graph
        self.n_anchors = n_anchors
        self.random_state = random_state
        self.verbose = verbose

    def _memory_terms(self, shape):
        n, d = shape.n, shape.d
        if self.graph == "anchor" or (self.graph == "auto" and n >= ANCHOR_GRAPH_MIN_SAMPLES):
            m = min(self.n_anchors, n)  # the dense copy, the anchor graph, m x m and d x d
            return {**super()._memory_terms(shape), **dense_copy_term(shape),
                    **anchor_terms(densified(shape), self.n_anchors, self.n_neighbors),
                    **gram_term(shape.d, 4), **gram_term(m, 8, "anchor matrix"),
                    **embedding_term(n, self.n_clusters, 2)}
        k1 = self.n_neighbors + 1
        terms = {**super()._memory_terms(shape), **dense_copy_term(shape),
                 **knn_terms(densified(shape), self.n_neighbors, weight=None),
                 **local_terms(shape, self.n_neighbors), **ridge_term(shape, 3),
                 **eigen_terms(n, self.n_clusters)}
        if n <= DENSE_EIGH_MAX:  # both Laplacians dense, for LAPACK
            return {**terms, **square_term(n, 2, "local and global Laplacians")}
        # The local Laplacian is sparse (n blocks of k+1 x k+1, assembled from triplets),
        # the global one an operator through d x d matrices; each iteration scales X by
        # sqrt(z) and keeps a single-precision copy for the products (the first also
        # centres X for the starting embedding).
        terms[f"the sparse {n} x {n} local Laplacian"] = n * k1 * k1 * 4 * 12
        terms[f"the scaled, centred and single-precision {n} x {d} copies of X"] = n * d * 20
        return terms

    def _fit(self, X):
        name = type(self).__name__
        X = densify(X, name)
        n, d = X.shape
        rng = self._start_fit(X)
        alpha, lam_g, lam_l = self.alpha, self.lambda_global, self.lambda_local

        tracker = ObjectiveTracker(
            name, self.max_iter, self.tol,
            hint=f"lambda_global (got {lam_g}) / lambda_local (got {lam_l})", verbose=self.verbose)
        if resolve_graph(self.graph, X) == "anchor":
            z, self.embedding_, self.anchor_embedding_ = fit_anchor(
                X, n_clusters=self.n_clusters, alpha=alpha, lambda_global=lam_g,
                lambda_local=lam_l, n_neighbors=self.n_neighbors, n_anchors=self.n_anchors,
                max_iter=self.max_iter, tracker=tracker, random_state=rng)
            self.feature_weights_ = z
            self.objective_ = tracker.finish()
            self.n_iter_ = tracker.n_iter
            return z
        z = np.full(d, 1.0 / d)
        ind = None
        Y = None
        # Above DENSE_EIGH_MAX the products with the n x d data dominate and are
        # bandwidth-bound: single precision for them (see the Cost paragraph).
        fast = np.float32 if (n > DENSE_EIGH_MAX and self.eigen_solver == "auto") else None
        if fast is not None:
            # Start of the first block-LOBPCG Y-step: the leading principal component
            # scores, the smallest eigenvectors of L_g (see lgdfs_embedding).
            U, sv, _ = randomized_svd(X - X.mean(axis=0), min(self.n_clusters, d),
                                      random_state=rng)
            Y = U * sv
        approximate = resolve_neighbors_algorithm(self.neighbors_algorithm, X) == "approximate"
        for _ in range(self.max_iter):
            if approximate and ind is not None:  # warm start: a local join in the new metric
                _, ind = refine_neighbors(X * np.sqrt(z), ind)
            else:
                _, ind = weighted_knn_graph(X, self.n_neighbors, z,
                                            algorithm=self.neighbors_algorithm,
                                            random_state=rng, init_indices=ind)
            regions = local_regions(ind)
            L_l, L_g, inv, blocks = _laplacians(X, z, regions, lam_g, lam_l, product_dtype=fast)
            Y, _ = lgdfs_embedding(L_l, L_g, alpha, self.n_clusters,
                                   eigen_solver=self.eigen_solver, random_state=rng, Y0=Y)
            wbar_sq, fit = lgdfs_regression_norms(X, Y, z, regions, alpha, lam_g, lam_l,
                                                  inverse=inv, local_blocks=blocks)
            z = lgdfs_z_step(wbar_sq)
            obj = fit + float(np.sqrt(np.maximum(wbar_sq, 0.0)).sum()) ** 2
            if tracker.append(obj):
                break

        self.feature_weights_ = z
        self.embedding_ = Y
        self.objective_ = tracker.finish()
        self.n_iter_ = tracker.n_iter
        return z
