"""SPCAFS: sparse PCA with l2,p-norm regularisation for feature selection (Li, Nie, Bian, Li)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions

from ..._iterate import ObjectiveTracker
from ...base import BaseSelector, NumericalError, warn_not_converged
from ...linalg import l2p_norm, l2p_reweight, partial_eigh, scatter_matrix
from ...utils import is_dask_array
from ...utils._deprecation import renamed_attribute
from ...utils._memory import embedding_term, gram_term

__all__ = ["SPCAFS", "spcafs_objective", "spcafs_path"]

#: ``solver="auto"`` applies S_t implicitly above this many features.
_OPERATOR_MIN_D = 2000


def _centred_product(X, mu):
    """``v -> Xc v`` and ``u -> Xc^T u`` for ``Xc = X - 1 mu^T``, without forming Xc."""
    n = X.shape[0]

    def fwd(V):
        return np.asarray(X @ V) - (mu @ V)[None, ...] if V.ndim == 2 else np.asarray(X @ V) - mu @ V

    def adj(U):
        s = U.sum(axis=0)
        return np.asarray(X.T @ U) - np.multiply.outer(mu, s) if U.ndim == 2 \
            else np.asarray(X.T @ U) - mu * s

    return fwd, adj, n


def spcafs_objective(X, W, gamma, p=1.0, eps=1e-10, *, St=None):
    """Objective (23): ``-Tr(W^T S_t W) + gamma sum_i (||w^i||^2 + eps)^{p/2}``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
    W : ndarray of shape (n_features, m)
    gamma, p, eps : floats
    St : ndarray of shape (n_features, n_features), optional
        The total scatter ``X^T H X`` if already computed; otherwise
        ``Tr(W^T S_t W) = ||X_c W||_F^2`` is evaluated without it.
    """
    if St is not None:
        trace = float(np.sum(W * (St @ W)))
    else:
        mu = np.asarray(X.mean(axis=0)).ravel()
        fwd, _, _ = _centred_product(X, mu)
        XcW = fwd(W)
        trace = float(np.sum(XcW * XcW))
    return -trace + gamma * l2p_norm(W, p, eps)


def _scatter_operator(X, mu, g, gamma):
    """LinearOperator ``v -> X_c^T (X_c v) - gamma g * v`` (d x d, never formed)."""
    fwd, adj, _ = _centred_product(X, mu)
    d = X.shape[1]

    def matmat(V):
        return adj(fwd(V)) - gamma * (g[:, None] * V)

    def matvec(v):
        v = np.ravel(v)
        return adj(fwd(v)) - gamma * g * v

    return splinalg.LinearOperator((d, d), matvec=matvec, matmat=matmat, rmatvec=matvec,
                                   dtype=np.float64)


def _pca_axes_from_gram(X, mu, m):
    """The m leading principal axes of X from the n x n Gram matrix of the centred
    data (no d x d matrix, no centred copy of X); None if the rank is below m."""
    XXt = X @ X.T
    XXt = XXt.toarray() if sparse.issparse(XXt) else np.asarray(XXt)
    Xmu = np.asarray(X @ mu).ravel()
    K = XXt - Xmu[:, None] - Xmu[None, :] + float(mu @ mu)
    K = 0.5 * (K + K.T)
    lam, U = partial_eigh(K, m, which="largest", method="dense")
    if lam[0] <= 1e-10 * max(lam[-1], np.finfo(float).tiny):
        return None
    _, adj, _ = _centred_product(X, mu)
    W = adj(U) / np.sqrt(lam)
    return W[:, ::-1]


def spcafs_path(X, n_components, gamma, *, p=1.0, eps=1e-10, max_iter=100, tol=1e-6,
                solver="dense", random_state=None, owner="SPCAFS", verbose=0):
    """Algorithm 1 of the SPCAFS paper with the l2,p reweighting of Eq. (26).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        Never modified; sparse X is never densified or centred explicitly.
    n_components : int
        m, the number of projection directions.
    gamma, p, eps : floats
        The regularisation weight, the exponent of the l2,p norm and the
        smoothing constant of Eq. (22).
    max_iter, tol : stopping rule (relative change of objective (23)).
    solver : {"dense", "operator"}
        ``"dense"`` forms ``S_t`` (d x d, O(n d^2) once) and takes the m
        largest eigenpairs of ``S_t - gamma G`` by LAPACK each iteration.
        ``"operator"`` never forms a d x d matrix: ``S_t - gamma G`` is applied
        as ``v -> X_c^T (X_c v) - gamma g * v`` and LOBPCG, warm-started from
        the previous W and preconditioned by ``diag(1 / (gamma g + ||S_t||))``,
        finds the m extreme eigenpairs (O(nnz(X) m) per product).
    random_state : int, RandomState or None
        Start block of the iterative eigensolver.

    Returns
    -------
    W : ndarray of shape (n_features, m)
    objective : ndarray of shape (n_iter,)
        Objective (23) after each update of W.
    converged : bool
    last_change : float
    """
    rng = check_random_state(random_state)
    n, d = X.shape
    m = n_components
    gram_start = n < d and not is_dask_array(X)
    mu = np.asarray(X.mean(axis=0)).ravel() if solver == "operator" or gram_start else None
    g = np.ones(d)
    St = scatter_matrix(X, owner=owner) if solver == "dense" else None
    if solver == "operator":
        lam1, _ = partial_eigh(_scatter_operator(X, mu, np.zeros(d), 0.0), 1, which="largest",
                               method="arpack", tol=1e-4, random_state=rng)
        lam1 = max(float(lam1[0]), np.finfo(float).tiny)
    W = None
    track = ObjectiveTracker(owner, max_iter, tol, verbose=verbose,
                             advice=f"Increase eps (got {eps:g}) or rescale the data / gamma "
                                    f"(got {gamma:g}).")
    objective = track.values
    for _ in range(max_iter):
        # W-step: the m largest eigenvectors of S_t - gamma G, i.e. the m
        # smallest of -S_t + gamma G (Algorithm 1, step 3; Eq. 27).
        if W is None and gram_start:
            # First iteration, G = I: the eigenvectors of S_t - gamma I are the
            # principal axes; with n < d they come from the n x n Gram matrix
            # X_c X_c^T (push-through), W = X_c^T U diag(sigma^-1): one n x n
            # eigenproblem instead of a d x d one.
            W = _pca_axes_from_gram(X, mu, m)
            if W is not None:
                g = l2p_reweight(W, p, eps)
                track.append(spcafs_objective(X, W, gamma, p, eps, St=St))
                continue
        if solver == "dense":
            # The m largest eigenpairs of the d x d matrix by LAPACK (MRRR,
            # subset by index), in place in a fresh copy of S_t.
            A = St.copy()
            A[np.diag_indices(d)] -= gamma * g
            _, W = linalg.eigh(A, subset_by_index=[d - m, d - 1], overwrite_a=True,
                               check_finite=False)
        else:
            # Smallest eigenpairs of C = gamma G - X_c^T X_c (= -(S_t - gamma G)).
            op = _scatter_operator(X, mu, g, gamma)
            C = splinalg.LinearOperator((d, d), matvec=lambda v, op=op: -op.matvec(v),
                                        matmat=lambda V, op=op: -op.matmat(V), dtype=np.float64)
            M = sparse.diags(1.0 / (gamma * g + lam1))
            W_prev = W
            w, W = partial_eigh(C, m, which="smallest", method="lobpcg", X0=W_prev,
                                M=M, tol=1e-8 * lam1, maxiter=500, random_state=rng,
                                check_residuals=False)
            resid = np.linalg.norm(C.matmat(W) - W * w, axis=0)
            if not np.all(resid <= 1e-6 * lam1):
                # LOBPCG stalled (it can, from a nearly converged start):
                # fall back to ARPACK, warm-started from the same block.
                _, W = partial_eigh(C, m, which="smallest", method="arpack", X0=W_prev,
                                    tol=1e-12, random_state=rng)
        # G-step: Eq. (26).
        g = l2p_reweight(W, p, eps)
        obj = spcafs_objective(X, W, gamma, p, eps, St=St)
        if not np.isfinite(obj) or not np.all(np.isfinite(W)):
            raise NumericalError(
                f"{owner}: objective (23) became {obj} at iteration {len(objective) + 1}. "
                f"Increase eps (got {eps:g}) or rescale the data / gamma (got {gamma:g})."
            )
        if track.append(obj):
            break
    return W, np.asarray(objective), track.converged, track.last_change


class SPCAFS(BaseSelector):
    """Sparse PCA with l2,p-norm regularisation for unsupervised feature selection (SPCAFS).

    Finds m orthonormal principal directions W whose rows are made sparse by an
    l2,p penalty (0 < p <= 1), solved by reweighted eigendecompositions (Li, Nie,
    Bian and Li, TPAMI 2023 [1]_). Features are ranked by the row norms of W.

    Sparse input stays sparse; a dask array is accepted with ``solver="dense"``.

    Parameters
    ----------
    {n_features_to_select}
    n_components : int or None, default=None
        m, the dimension of the projection (the paper: c - 1). None uses
        ``min(5, max(d - 1, 1))``.
    gamma : float, default=1.0
        Regularisation weight (the paper's grid: 1e-6, 1e-4, ..., 1e6).
    p : float in (0, 1], default=1.0
        Exponent of the l2,p norm.
    eps : float, default=1e-10
        Smoothing constant of Eq. (22).
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=1e-6
        Relative change of the objective at which iterations stop.
    solver : {"auto", "dense", "operator"}, default="auto"
        ``"dense"`` forms ``S_t`` and decomposes a d x d matrix per iteration;
        ``"operator"`` applies ``S_t - gamma G`` through products with X (LOBPCG);
        ``"auto"`` picks ``"operator"`` when d > 2000 (see Notes).
    random_state : int, RandomState or None, default=None
        Seeds the iterative eigensolver (operator path only).
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^i||_2``.
    W_ : ndarray of shape (n_features, n_components)
        The projection W (orthonormal columns).
    objective_ : ndarray of shape (`n_iter_`,)
        Objective (23) after each iteration (non-increasing).
    {n_iter_}
    n_components_ : int
    solver_ : str
        The solver used.
    {selector_attributes}

    See Also
    --------
    MaxVariance : Ranks by variance alone, without the l2,p sparsity.

    Notes
    -----
    **Objective** (problem 23 of [1]_)::

        min_{W^T W = I}  -Tr(W^T S_t W) + gamma sum_i (||w^i||^2 + eps)^(p/2)

    with ``S_t = X^T H X`` the total scatter (Eqs. 17-18, no 1/n).

    **Algorithm 1**: starting from ``G = I``, alternate

    - W = the m eigenvectors of ``-S_t + gamma G`` with the smallest eigenvalues
      (Eq. 27), and
    - ``g_ii = (p/2) (||w^i||^2 + eps)^((p-2)/2)`` (Eq. 26),

    which never increases the objective (Theorem 2). Features are ranked by
    ``||w^i||_2`` (Algorithm 1, step 6).

    **Interpretations and choices**:

    - General ``0 < p <= 1`` as in the paper; the released MATLAB code hard-codes
      p = 1 (pass ``p=1`` for it).
    - ``objective_`` holds objective (23) after each W-update (with the G of that W).
      The loop stops when its relative change falls below ``tol`` (the released code
      uses an absolute 1e-6, which the objective's scale on raw pixels never reaches,
      and at most 50 iterations).
    - ``eps`` defaults to 1e-10 rather than the released code's 2.2e-16, so the largest
      reweighting entry, ``(p/2) eps^((p-2)/2)``, keeps the operator path's iterative
      eigensolver well conditioned; the objective changes by at most
      ``gamma d eps^(p/2)``.
    - The default ``n_components`` is ``min(5, max(d - 1, 1))``: the paper sets
      m = c - 1 from the number of classes c, which an unsupervised selector does not
      know; pass ``n_components=c - 1`` to follow the paper.
    - X is used as given (the paper assumes normalised data; normalise in a pipeline).
    - W is determined up to a rotation (and signs) of its columns; the row norms, hence
      the scores, are not.

    **Cost.** ``solver="dense"`` forms ``S_t`` once (O(n d^2) time, d^2 memory) and
    takes the m extreme eigenpairs of a d x d matrix per iteration with LAPACK's
    MRRR driver restricted to those m. When n < d the first iteration (G = I, W the
    leading principal axes) solves the n x n Gram eigenproblem instead; the later
    steps, with a non-scalar G, stay d x d. ``solver="operator"`` applies
    ``S_t - gamma G`` as ``v -> X_c^T (X_c v) - gamma g * v`` (centring implicit,
    sparse-safe) and finds the m eigenpairs by LOBPCG warm-started from the previous
    W, O(nnz(X) m) per product; if LOBPCG stalls (residual above 1e-6 ||S_t||) it
    falls back to ARPACK. ``"auto"`` picks the operator when d > 2000. With a dask
    array ``S_t`` comes from one blockwise pass (:func:`ufsel.linalg.scatter_matrix`),
    so X may be larger than memory. See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] Z. Li, F. Nie, J. Bian, X. Li. Sparse PCA via l2,p-norm
       regularization for unsupervised feature selection. IEEE TPAMI 45(4),
       2023 (arXiv:2012.14595).

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from ufsel import SPCAFS
    >>> X, _ = load_digits(return_X_y=True)
    >>> sel = SPCAFS(n_features_to_select=10, n_components=9, gamma=100.0).fit(X)
    >>> sel.transform(X).shape
    (1797, 10)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "p": [Interval(Real, 0, 1, closed="right")],
        "eps": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "solver": [StrOptions({"auto", "dense", "operator"})],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    components_ = renamed_attribute("W_")

    def __init__(self, n_features_to_select=None, *, n_components=None, gamma=1.0, p=1.0,
                 eps=1e-10, max_iter=100, tol=1e-6, solver="auto", random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_components = n_components
        self.gamma = gamma
        self.p = p
        self.eps = eps
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.random_state = random_state
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.supports_dask = True
        tags.selector_tags.sparse_native = True
        return tags

    def _memory_terms(self, shape):
        terms = super()._memory_terms(shape)
        if self.solver == "dense" or (self.solver == "auto" and shape.d <= _OPERATOR_MIN_D):
            terms.update(gram_term(shape.d, 4, "scatter"))
        else:
            terms.update(embedding_term(shape.d, 5 * (self.n_components or 5), 4,
                                        "eigenvector block"))
        return terms

    def _fit(self, X):
        n, d = X.shape
        m = self.n_components if self.n_components is not None else min(5, max(d - 1, 1))
        if m > d:
            raise ValueError(
                f"SPCAFS: n_components={m} exceeds the number of features ({d}); W must "
                f"have orthonormal columns. Pass n_components <= {d}."
            )
        solver = self.solver
        if solver == "auto":
            solver = "operator" if d > _OPERATOR_MIN_D else "dense"
        if solver == "operator" and 5 * m >= d:
            solver = "dense"  # LOBPCG needs a block much thinner than d
        if is_dask_array(X):
            if solver == "operator":
                raise ValueError(
                    "SPCAFS on a dask array uses solver='dense' (S_t from one blockwise pass "
                    f"over the data, then d x d work in memory); got solver={self.solver!r} "
                    f"with d={d}. Pass solver='dense'."
                )
            solver = "dense"
        if sparse.issparse(X):
            X = X.tocsr()
        W, obj, converged, change = spcafs_path(
            X, m, self.gamma, p=self.p, eps=self.eps, max_iter=self.max_iter, tol=self.tol,
            solver=solver, random_state=self.random_state, verbose=self.verbose)
        if not converged and self.max_iter > 1:
            warn_not_converged("SPCAFS", self.max_iter, change, self.tol)
        self.W_ = W
        self.objective_ = obj
        self.n_iter_ = len(obj)
        self.n_components_ = m
        self.solver_ = solver
        return np.sqrt(np.einsum("ij,ij->i", W, W))
