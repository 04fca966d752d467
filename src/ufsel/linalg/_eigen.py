"""Partial symmetric eigensolvers: the few extreme eigenpairs, never more.

:func:`partial_eigh` picks dense LAPACK (``scipy.linalg.eigh`` with
``subset_by_index``) for small matrices and ARPACK (``scipy.sparse.linalg.eigsh``)
or LOBPCG for large, sparse or implicit (``LinearOperator``) ones.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..utils import import_optional

__all__ = ["partial_eigh", "amg_preconditioner", "DENSE_EIGH_MAX"]

#: Matrices of at most this order are decomposed densely by ``method="auto"``.
DENSE_EIGH_MAX = 1500
#: ... and a matrix that is already a dense array, for its smallest eigenpairs,
#: up to this order: ARPACK's "SA" mode converges very slowly (or not at all in
#: its default iteration limit) on the clustered near-zero spectrum of a
#: rank-deficient d x d matrix such as UDFS's ``X^T L X`` on term counts, where
#: LAPACK's subset ``eigh`` is fast.
DENSE_SMALLEST_MAX = 4096

_WHICH = {"smallest": "SA", "largest": "LA"}


def _to_dense(A):
    if sparse.issparse(A):
        return A.toarray()
    if isinstance(A, splinalg.LinearOperator):
        return A @ np.eye(A.shape[1], dtype=A.dtype)
    return np.asarray(A)


def amg_preconditioner(A, *, shift=1e-5):
    """Smoothed-aggregation AMG preconditioner of a sparse PSD matrix (pyamg).

    Built on ``A + shift I`` (a graph Laplacian is singular), as scikit-learn's
    ``spectral_embedding(eigen_solver="amg")`` does. Needs pyamg
    (``pip install 'ufsel[amg]'``).

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Symmetric positive semi-definite (a graph Laplacian).
    shift : float, default=1e-5
        Added to the diagonal before the hierarchy is built.
    """
    pyamg = import_optional("pyamg", purpose="The AMG-preconditioned LOBPCG eigensolver")
    A = sparse.csr_matrix(A)
    ml = pyamg.smoothed_aggregation_solver(A + shift * sparse.eye(A.shape[0], format="csr",
                                                                   dtype=A.dtype))
    return ml.aspreconditioner()


def partial_eigh(A, k, *, which="smallest", method="auto", tol=0.0, maxiter=None,
                 random_state=None, X0=None, M=None, check_residuals=True):
    """The ``k`` smallest or largest eigenpairs of a symmetric matrix.

    Parameters
    ----------
    A : ndarray, sparse matrix or LinearOperator of shape (n, n)
        Symmetric. Only products ``A @ V`` are used by the iterative solvers.
    k : int
        Number of eigenpairs, ``1 <= k <= n``.
    which : {"smallest", "largest"}
        Algebraically smallest or largest eigenvalues.
    method : {"auto", "dense", "arpack", "lobpcg"}
        ``"auto"`` uses dense LAPACK when ``n <= DENSE_EIGH_MAX``, when k is
        more than a fifth of n (ARPACK needs k < n), or for the smallest
        eigenpairs of a dense ndarray up to ``DENSE_SMALLEST_MAX``; otherwise
        ARPACK.
    tol : float
        Convergence tolerance of the iterative solvers (0 = machine precision
        for ARPACK).
    maxiter : int, optional
        Iteration limit of the iterative solvers.
    random_state : int, RandomState or None
        Seeds the starting vector(s) of the iterative solvers, so results are
        reproducible.
    X0 : ndarray of shape (n, k), optional
        Warm start of the iterative solvers (for instance the eigenvectors of
        the previous iteration of a reweighting loop): the block itself for
        LOBPCG, the sum of its columns as ARPACK's start vector.
        LOBPCG accepts fewer than k columns (the rest are random).
    M : "amg", ndarray, sparse matrix or LinearOperator, optional
        Preconditioner for LOBPCG (an approximation of the inverse of A, or
        of A shifted to be positive definite); ignored by the other methods.
        ``"amg"`` builds :func:`amg_preconditioner` on A (for the smallest
        eigenpairs of a sparse PSD matrix such as a graph Laplacian; needs
        pyamg, ``pip install 'ufsel[amg]'``).
    check_residuals : bool
        LOBPCG only: warn (``ConvergenceWarning``) when a residual
        ``||A v - w v||`` exceeds ten times the tolerance (``tol``, or
        LOBPCG's default ``n sqrt(eps)``). Pass False when the caller checks
        the residuals itself and falls back to another solver.

    Returns
    -------
    w : ndarray of shape (k,)
        Eigenvalues in ascending order.
    V : ndarray of shape (n, k)
        Orthonormal eigenvectors, columns matching ``w``.
    """
    if which not in _WHICH:
        raise ValueError(f"which={which!r} not understood, valid options are {set(_WHICH)}.")
    n = A.shape[0]
    if A.shape != (n, n):
        raise ValueError(f"A must be square, got shape {A.shape}.")
    if not 1 <= k <= n:
        raise ValueError(f"k must be in [1, n={n}], got k={k}.")
    if method == "auto":
        dense_smallest = (which == "smallest" and isinstance(A, np.ndarray)
                          and n <= DENSE_SMALLEST_MAX)
        method = ("dense" if (n <= DENSE_EIGH_MAX or k >= max(n // 5, n - 1) or dense_smallest)
                  else "arpack")
    if method == "dense":
        M = _to_dense(A)
        lo, hi = (0, k - 1) if which == "smallest" else (n - k, n - 1)
        w, V = linalg.eigh(M, subset_by_index=[lo, hi], check_finite=False)
        return w, V
    rng = check_random_state(random_state)
    if method == "arpack":
        if k >= n - 1:  # ARPACK requires k < n
            return partial_eigh(A, k, which=which, method="dense")
        v0 = rng.uniform(-1, 1, n) if X0 is None else np.asarray(X0).sum(axis=1)
        if not np.any(v0):
            v0 = rng.uniform(-1, 1, n)
        w, V = splinalg.eigsh(A, k=k, which=_WHICH[which], v0=v0, tol=tol, maxiter=maxiter)
    elif method == "lobpcg":
        dtype = np.float32 if getattr(A, "dtype", None) == np.float32 else np.float64
        start = rng.standard_normal((n, k)).astype(dtype)
        if X0 is not None:
            X0 = np.asarray(X0, dtype=dtype).reshape(n, -1)
            start[:, : X0.shape[1]] = X0[:, :k]
        if isinstance(M, str):
            if M != "amg":
                raise ValueError(
                    f"M={M!r} not understood, valid options are 'amg', a matrix or a "
                    "LinearOperator."
                )
            M = amg_preconditioner(A)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            w, V = splinalg.lobpcg(A, start, M=M, largest=(which == "largest"),
                                   tol=tol or None, maxiter=maxiter or 200)
        if check_residuals:  # never silently inexact
            bound = 10.0 * (tol or n * np.sqrt(np.finfo(dtype).eps))
            res = np.linalg.norm(np.asarray(A @ V) - V * w, axis=0)
            if not np.all(res <= bound):
                warnings.warn(
                    f"LOBPCG did not converge: largest eigenpair residual {np.max(res):.3g} "
                    f"above {bound:.3g} after {maxiter or 200} iterations; the eigenvectors "
                    "are inexact. Use the dense or ARPACK solver (eigen_solver='dense' or "
                    "'arpack') or raise maxiter.",
                    ConvergenceWarning, stacklevel=2,
                )
    else:
        raise ValueError(
            f"method={method!r} not understood, valid options are "
            "{'auto', 'dense', 'arpack', 'lobpcg'}."
        )
    order = np.argsort(w)
    return w[order], V[:, order]
