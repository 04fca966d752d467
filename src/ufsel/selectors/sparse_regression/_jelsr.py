"""JELSR: Joint Embedding Learning and Sparse Regression (Hou et al., IJCAI 2011 / TCYB 2014)."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import CLUSTER_GRAPH_CONSTRAINTS, ITERATIVE_CONSTRAINTS, ObjectiveTracker
from ...base import BaseSelector
from ...graph import graph_laplacian, knn_affinity, lle_weights, reconstruction_laplacian
from ...graph._memory import eigen_terms, knn_terms
from ...linalg import (
    RidgeFactor,
    column_mean_var,
    eigen_residuals,
    gram_matrix,
    l2p_norm,
    l2p_reweight,
    resolve_eigen_method,
    scatter_matrix,
    smallest_eigvecs,
)
from ...linalg._warm_eigh import WARM_RTOL
from ...utils._memory import local_terms, ridge_term

__all__ = ["JELSR", "jelsr_embedding_laplacian", "jelsr_objective"]

_EPS = 2.220446049250313e-16


def jelsr_embedding_laplacian(X, n_neighbors=5, *, embedding="lle", reg=1e-3, random_state=None):
    """The embedding matrix L of JELSR's ``Tr(Y^T L Y)`` (sparse, symmetric PSD).

    ``"lle"``: ``(I - S)^T (I - S)`` with S the locally linear reconstruction
    weights (the IJCAI 2011 paper's local structure); ``"laplacian"``: the normalised Laplacian
    ``I - D^{-1/2} W D^{-1/2}`` of a k-NN heat-kernel graph (the Laplacian
    Eigenmaps variant of the TCYB 2014 framework, and FSASL's
    ``fs_unsup_jelsr`` with its normalised W).
    """
    if embedding == "lle":
        return reconstruction_laplacian(lle_weights(X, n_neighbors, reg=reg))
    W = knn_affinity(X, n_neighbors, weight="heat", random_state=random_state)
    L = graph_laplacian(W, normed=True)
    return (0.5 * (L + L.T)).tocsr()


def jelsr_objective(X, Y, W, L, alpha, beta, eps=_EPS, *, mean=None):
    """``Tr(Y^T L Y) + beta (||X W - Y||_F^2 + alpha ||W||_{2,1})``, the JELSR objective.

    X is n x d (samples in rows, centred), Y n x c with ``Y^T Y = I``, W d x c.
    With ``mean``, X is taken as ``X - 1 mean^T`` (centred implicitly; sparse X
    stays sparse).
    """
    R = np.asarray(X @ W) - Y
    if mean is not None:
        R -= (mean @ W)[None, :]
    return (float(np.sum(Y * (L @ Y)))
            + beta * (float(np.sum(R * R)) + alpha * l2p_norm(W, 1.0, eps)))


def _dense_hat_complement(fac, n):
    """The n x n matrix ``I - X_c (X_c^T X_c + alpha U)^{-1} X_c^T`` of a :class:`RidgeFactor`.

    Push-through form (d > n): ``(I + X_c G^{-1} X_c^T)^{-1}`` from the n x n
    Cholesky factor already computed. Primal form (d <= n): with the d x d
    Cholesky factor ``C = R^T R``, ``I - B^T B`` with ``B = R^{-T} X_c^T``
    (one triangular solve with n right-hand sides and one symmetric product,
    ``d^2 n + d n^2`` flops instead of products with an n x n identity).
    """
    if not fac.primal:
        return linalg.cho_solve(fac.cf, np.eye(n), check_finite=False)
    X = fac.X
    Xt = X.T.toarray() if sparse.issparse(X) else np.array(X.T)
    if fac.mu is not None:
        Xt -= fac.mu[:, None]
    cf, lower = fac.cf
    B = linalg.solve_triangular(cf, Xt, lower=lower, trans="N" if lower else "T",
                                check_finite=False, overwrite_b=True)
    H = -(B.T @ B)
    H[np.diag_indices(n)] += 1.0
    return H


class _ShiftInvert:
    """``A^{-1}`` for the Y-step matrix ``A = L + beta (I - X_c (X_c^T X_c + alpha U)^{-1} X_c^T)``.

    With ``B = L + beta I`` (sparse, positive definite, factorised once by SuperLU)
    and ``G = X_c^T X_c + alpha U``, the Woodbury identity gives

        A^{-1} = B^{-1} + Z S^{-1} Z^T,  Z = B^{-1} X_c,
        S = G / beta - X_c^T Z = (X_c^T L B^{-1} X_c + alpha U) / beta

    (``I - beta B^{-1} = B^{-1} L``, so S is formed without cancellation). Z and
    ``F = X_c^T L Z`` (d x d, symmetric PSD) do not depend on U and are computed once;
    each iteration factorises only the d x d ``S``. Used for d <= n.
    """

    def __init__(self, L, X, mu, beta):
        n, d = X.shape
        B = (L + beta * sparse.identity(n, format="csr")).tocsc()
        self.lu = splinalg.splu(B, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                                options={"SymmetricMode": True})
        self.beta = beta
        # a zero column of X_c (a constant feature) has no part in A: its row and column
        # of G are alpha u_j alone, so Z, F and S leave it out
        if sparse.issparse(X):  # X_c = X - 1 mu^T is zero where X is zero and mu_j = 0
            nonzero = np.diff(X.tocsc().indptr) > 0
            self.keep = np.flatnonzero(nonzero | (mu != 0))
        else:  # X is centred
            self.keep = np.flatnonzero(np.any(X != 0, axis=0))
        cols = self.keep
        self.Z = np.empty((n, cols.size))
        step = 256  # columns of X_c at a time: sparse X is densified one slice at a time
        for j in range(0, cols.size, step):
            c = cols[j:j + step]
            Xj = X[:, c]
            Xj = Xj.toarray() if sparse.issparse(Xj) else np.array(Xj)
            if mu is not None:
                Xj -= mu[c]
            self.Z[:, j:j + step] = self.lu.solve(Xj)
        LZ = np.asarray(L @ self.Z)
        F = np.empty((cols.size, cols.size))
        for j in range(0, cols.size, step):
            c = cols[j:j + step]
            F[j:j + step] = np.asarray(X[:, c].T @ LZ)
            if mu is not None:
                F[j:j + step] -= np.multiply.outer(mu[c], LZ.sum(axis=0))
        self.F = 0.5 * (F + F.T)

    def operator(self, g):
        """``A^{-1}`` as a LinearOperator, for the ridge diagonal ``g = alpha u``."""
        S = self.F + np.diag(g[self.keep])
        S /= self.beta
        cf = linalg.cho_factor(S, check_finite=False)
        Z, lu = self.Z, self.lu

        def matmat(V):
            V = V.reshape(Z.shape[0], -1)
            return lu.solve(V) + Z @ linalg.cho_solve(cf, Z.T @ V, check_finite=False)

        n = Z.shape[0]
        return splinalg.LinearOperator((n, n), matvec=lambda v: matmat(v).ravel(),
                                       matmat=matmat, dtype=np.float64)


def _push_through_inverse(fac, L, beta):
    """``A^{-1}`` for d > n, from the n x n push-through Cholesky factor of a :class:`RidgeFactor`.

    There ``I - hat = K^{-1}`` with ``K = I + X_c G^{-1} X_c^T = R^T R`` (R upper
    triangular), so ``A = L + beta K^{-1} = R^{-1} (R L R^T + beta I) R^{-T}`` and
    ``A^{-1} = R^T M^{-1} R`` with the positive definite ``M = R L R^T + beta I``
    (one triangular product and one Cholesky factorisation, n x n).
    """
    cf, lower = fac.cf
    R = cf.T if lower else cf
    R = np.triu(R)
    n = R.shape[0]
    M = linalg.blas.dtrmm(1.0, R, np.asarray(L @ R.T), side=0, lower=0)
    M = 0.5 * (M + M.T)
    M[np.diag_indices(n)] += beta
    cm = linalg.cho_factor(M, overwrite_a=True, check_finite=False)

    def matmat(V):
        V = V.reshape(n, -1)
        return R.T @ linalg.cho_solve(cm, R @ V, check_finite=False)

    return splinalg.LinearOperator((n, n), matvec=lambda v: matmat(v).ravel(),
                                   matmat=matmat, dtype=np.float64)


def _shift_invert_smallest(A, Ainv, c, bound, Y_prev, rng):
    """The c smallest eigenvectors of the PSD operator A by ARPACK on ``A^{-1}``
    (its c largest eigenvalues, to machine precision), Rayleigh-Ritz refined on A;
    None when ARPACK fails or a residual ``||A y - theta y||`` exceeds ``bound``."""
    n = A.shape[0]
    v0 = None if Y_prev is None else np.asarray(Y_prev).sum(axis=1)
    if v0 is None or not np.any(v0):
        v0 = rng.uniform(-1.0, 1.0, n)
    try:
        _, V = splinalg.eigsh(Ainv, k=c, which="LA", tol=0, v0=v0)
    except splinalg.ArpackNoConvergence:
        return None
    if not np.all(np.isfinite(V)):
        return None
    _, Y, res = eigen_residuals(A, V)
    return Y if res.max() <= bound else None


class JELSR(BaseSelector):
    """Joint Embedding Learning and Sparse Regression (JELSR).

    Learns a low-dimensional embedding Y that preserves the local linear structure of
    the samples and, jointly, an l2,1-penalised regression W of Y on the features
    (Hou, Nie, Yi and Wu, IJCAI 2011 [1]_; extended in [2]_). Features are ranked by
    the squared row norms of W.

    Sparse input is never densified.

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the embedding dimension.
    n_neighbors : int, default=5
        Number of nearest neighbours of each sample in the k-NN graph (the sample
        itself excluded).
    alpha : float, default=1.0
        Weight of the l2,1 norm.
    beta : float, default=1.0
        Weight of the regression term.
    embedding : {"lle", "laplacian"}, default="lle"
        The local-structure matrix L: locally linear reconstruction weights (the
        IJCAI paper's graph) or the normalised heat-kernel Laplacian (FSASL's
        ``fs_unsup_jelsr``).
    max_iter : int, default=20
        FSASL's ``itermax``.
    tol : float, default=1e-4
        Relative change of ``objective_`` at which the iterations stop.
    eigen_solver : {"auto", "dense", "arpack", "lobpcg"}, default="auto"
        The Y-step's eigensolver: ``"auto"`` is exact dense LAPACK up to
        n = 1500 samples and shift-invert ARPACK with checked residuals above
        (see Notes);
        the others force that solver in every iteration (see
        :func:`ufsel.linalg.smallest_eigvecs`).
    random_state : int, RandomState or None, default=None
        Seeds the iterative eigensolver.
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Score of each feature, higher is better.
    W_ : ndarray of shape (n_features, n_clusters)
    embedding_ : ndarray of shape (n_samples, n_clusters)
        Y.
    objective_ : ndarray of shape (`n_iter_`,)
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    NDFS, UDFS, MCFS

    Notes
    -----
    **Objective** (X centred, samples in rows)::

        min_{W, Y^T Y = I}  Tr(Y^T L Y) + beta (||X W - Y||_F^2 + alpha ||W||_{2,1})

    with L the embedding matrix of the local structure (``(I - S)^T (I - S)`` for the
    locally linear reconstruction weights S). With ``U_ii = 1 / (2 ||w^i||)``, each
    iteration takes

    - Y = the c eigenvectors of the smallest eigenvalues of
      ``L + beta (I - X (X^T X + alpha U)^{-1} X^T)`` (W at its optimum for Y);
    - ``W = (X^T X + alpha U)^{-1} X^T Y``;
    - U from W,

    each minimising a majoriser, so ``objective_`` decreases. The objective and the
    steps follow the public MATLAB codes in FSASL (``fs_unsup_jelsr_liang.m``, which
    states this objective citing [1]_, and ``fs_unsup_jelsr.m``, the
    Laplacian-Eigenmaps variant); the equation numbers of the papers are not quoted
    because their text was not available for checking.

    **Interpretations**:

    - X is centred (as FSASL's ``fs_unsup_jelsr``; without it the regression has no
      intercept and the constant direction of Y is unexplained). Sparse X is centred
      implicitly (:class:`ufsel.linalg.RidgeFactor` with ``mean``), and its graph is
      built from X itself (LLE weights and k-NN distances do not change under a
      translation).
    - ``embedding="lle"`` (default) is the IJCAI paper's locally linear graph, with LLE
      weights regularised by ``1e-3 * trace`` of the local covariance;
      ``embedding="laplacian"`` uses the normalised heat-kernel Laplacian of FSASL's
      ``fs_unsup_jelsr`` (LPP weights). That code takes the top eigenvectors of a
      degree-normalised matrix, drops the leading one and rescales them; here the
      normalised Laplacian enters the stated objective, so that the Y-step is its
      exact minimiser.
    - The trivial eigenvector is not removed: for centred X the constant vector has
      eigenvalue beta, not 0.
    - U = I at the start; Y from the first Y-step. Defaults ``alpha = beta = 1``,
      ``n_neighbors=5`` (the papers grid alpha and beta).
    - The Y-step (``eigen_solver="auto"``) forms the n x n matrix and solves it
      exactly with LAPACK up to ``ufsel.linalg.DENSE_EIGH_MAX`` samples (from the
      n x n push-through Cholesky factor when d > n). Above that size ARPACK finds
      the c largest eigenvalues of the inverse (shift-invert at 0, to machine
      precision); the Ritz pairs are refined on the matrix itself and their residuals
      checked. When d <= n the inverse is applied by the Woodbury identity
      ``A^{-1} = B^{-1} + Z S^{-1} Z^T`` with ``B = L + beta I`` factorised once
      (SuperLU), ``Z = B^{-1} X`` computed once and only the d x d matrix
      ``S = (X^T L Z + alpha U) / beta`` factorised per iteration. When d > n,
      ``I - hat = K^{-1}`` with ``K = R^T R`` the push-through factor, so
      ``A^{-1} = R^T (R L R^T + beta I)^{-1} R`` (one n x n triangular product and
      Cholesky factorisation per iteration). If a check fails, or with an explicit
      ``eigen_solver``, the matrix is applied as a linear operator, the first step by
      ARPACK and later ones by LOBPCG warm-started from the previous Y, with checked
      residuals and an exact fallback (:func:`ufsel.linalg.smallest_eigvecs`).

    **Cost**: the LLE graph (a k-NN search and n local k x k solves), and per
    iteration the ridge factorisation (d x d, or n x n when d > n). Up to the dense
    size, a dense n x n partial eigensolve per iteration. Above it, when d <= n: one
    sparse LU of ``L + beta I``, d sparse triangular solves for Z and an n x d x d
    product once, then per iteration a d x d Cholesky factorisation and an ARPACK run
    whose products cost one sparse solve and two n x d products each; when d > n: per
    iteration an n x n triangular product and Cholesky factorisation, and products of
    O(n^2).

    See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] C. Hou, F. Nie, D. Yi, Y. Wu. Feature selection via joint embedding
       learning and sparse regression. IJCAI 2011.
    .. [2] C. Hou, F. Nie, X. Li, D. Yi, Y. Wu. Joint embedding learning and
       sparse regression: a framework for unsupervised feature selection.
       IEEE Trans. Cybernetics 44(6):793-804, 2014.

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from ufsel import JELSR
    >>> X, _ = load_digits(return_X_y=True)
    >>> JELSR(n_features_to_select=10, n_clusters=10, random_state=0).fit(X).transform(X).shape
    (1797, 10)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        **CLUSTER_GRAPH_CONSTRAINTS,
        **ITERATIVE_CONSTRAINTS,
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "beta": [Interval(Real, 0, None, closed="neither")],
        "embedding": [StrOptions({"lle", "laplacian"})],
        "eigen_solver": [StrOptions({"auto", "dense", "arpack", "lobpcg"})],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_neighbors=5, alpha=1.0,
                 beta=1.0, embedding="lle", max_iter=20, tol=1e-4, eigen_solver="auto",
                 random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.alpha = alpha
        self.beta = beta
        self.embedding = embedding
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
        terms = {**super()._memory_terms(shape), **knn_terms(shape, self.n_neighbors),
                 **local_terms(shape, self.n_neighbors), **ridge_term(shape, 3),
                 **eigen_terms(shape.n, self.n_clusters)}
        if not shape.sparse:
            terms[f"the centred {shape.n} x {shape.d} X"] = shape.n * shape.d * 8
        return terms

    def _y_step(self, L, fac, n, rng, Y_prev, shift_invert=None, g=None):
        """The c smallest eigenvectors of ``L + beta (I - hat)``."""
        c, beta = self.n_clusters, self.beta
        # the dense branch forms A from the Cholesky factor itself (cheaper than from products)
        method = resolve_eigen_method(self.eigen_solver, n, Y_prev is not None)
        if method == "dense" or c >= n - 1:
            A = _dense_hat_complement(fac, n)
            A *= beta
            A += L.toarray() if sparse.issparse(L) else L
            # LAPACK reads one triangle: the round-off asymmetry of A is ignored
            return linalg.eigh(A, subset_by_index=[0, c - 1], overwrite_a=True,
                               check_finite=False)[1]

        def matmat(V):
            return L @ V + beta * fac.hat_complement(V)

        op = splinalg.LinearOperator((n, n), matvec=lambda v: matmat(v.reshape(n, 1)).ravel(),
                                     matmat=matmat, rmatvec=lambda v: matmat(v.reshape(n, 1)).ravel(),
                                     rmatmat=matmat, dtype=np.float64)
        if self.eigen_solver == "auto":
            # ||A|| <= ||L||_inf + beta (I - hat has eigenvalues in [0, 1])
            bound = WARM_RTOL * (float(abs(L).sum(axis=1).max()) + beta)
            Ainv = (shift_invert.operator(g) if shift_invert is not None
                    else _push_through_inverse(fac, L, beta) if not fac.primal else None)
            Y = None if Ainv is None else _shift_invert_smallest(op, Ainv, c, bound, Y_prev, rng)
            if Y is not None:
                return Y
        return smallest_eigvecs(op, c, method=method, Y0=Y_prev, random_state=rng,
                                owner=type(self).__name__)

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        rng = self._start_fit(X)
        if sparse.issparse(X):
            # centred implicitly (RidgeFactor's ``mean``); the graph is translation
            # invariant and is built from X itself
            mu = column_mean_var(X)[0]
            gram = scatter_matrix(X, owner=name) if d <= n else None
        else:
            mu = None
            X = X - X.mean(axis=0)
            gram = gram_matrix(X, owner=name) if d <= n else None
        L = jelsr_embedding_laplacian(X, self.n_neighbors, embedding=self.embedding,
                                      random_state=rng)
        a, b = self.alpha, self.beta
        u = np.ones(d)
        Y = None
        shift_invert = None
        if (self.eigen_solver == "auto" and d <= n and self.n_clusters < n - 1
                and resolve_eigen_method("auto", n, False) != "dense"):
            shift_invert = _ShiftInvert(L, X, mu, b)
        track = ObjectiveTracker(name, self.max_iter, self.tol, "alpha or beta", verbose=self.verbose)
        for _ in range(self.max_iter):
            fac = RidgeFactor(X, a * u, gram=gram, mean=mu, owner=name)
            Y = self._y_step(L, fac, n, rng, Y, shift_invert, a * u)
            W = fac.solve(Y)
            u = l2p_reweight(W, 1.0, _EPS)
            if track.append(jelsr_objective(X, Y, W, L, a, b, mean=mu)):
                break
        self.objective_ = track.finish()
        self.n_iter_ = track.n_iter
        self.W_, self.embedding_ = W, Y
        return np.einsum("ij,ij->i", W, W)
