"""Smallest eigenvectors for alternating solvers: exact where small, checked where iterative.

UDFS, JELSR and LGDFS recompute, at every outer iteration, the c smallest
eigenvectors of a matrix that changes little from one iteration to the next.

- :func:`smallest_eigvecs` is the one entry point of their eigensteps. It
  honours the caller's ``eigen_solver`` in every iteration: ``"dense"`` is an
  exact LAPACK solve (the operator is formed when it is implicit),
  ``"arpack"`` an ARPACK solve to machine precision (which raises when it
  does not converge), ``"lobpcg"`` the warm-started LOBPCG below, and
  ``"auto"`` dense LAPACK up to ``dense_max`` and the warm LOBPCG above.
- :func:`warm_smallest_eigvecs` runs LOBPCG started from the previous block,
  then *checks the residuals* ``||A y_j - theta_j y_j|| <= rtol ||A||`` of the
  Rayleigh-Ritz pairs. When they are not met (LOBPCG stalls on clustered
  eigenvalues, such as those of UDFS's reweighted matrix on image data) it falls back to
  an exact solve (dense LAPACK up to ``DENSE_EIGH_MAX``, ARPACK above) and,
  if even that misses the tolerance, emits a ``ConvergenceWarning``: the
  result is never silently inexact.

In every case the returned block never has a larger trace ``Tr(Y^T A Y)``
than the (orthonormalised) start, which the monotone-descent arguments of
these methods need.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ._eigen import DENSE_EIGH_MAX, _to_dense, partial_eigh

__all__ = ["warm_smallest_eigvecs", "smallest_eigvecs", "eigen_residuals", "WARM_RTOL"]

#: Relative residual ``||A y - theta y|| / ||A||`` an iterative eigenpair must meet.
WARM_RTOL = 1e-8

_METHODS = ("auto", "dense", "arpack", "lobpcg")


def _as_operator(A):
    return A if isinstance(A, splinalg.LinearOperator) else splinalg.aslinearoperator(A)


def _trace(op, Y):
    return float(np.sum(Y * (op @ Y)))


def _norm_estimate(A, op, Y, random_state):
    """An estimate of ``||A||_2``: the inf-norm bound for explicit matrices, else a lower bound."""
    if isinstance(A, np.ndarray):
        return float(np.abs(A).sum(axis=1).max())
    if sparse.issparse(A):
        return float(abs(A).sum(axis=1).max())
    z = check_random_state(random_state).standard_normal((A.shape[0], 1))
    B = np.hstack([Y, z / np.linalg.norm(z)])
    return float(np.linalg.norm(op @ B, axis=0).max())


def eigen_residuals(A, Y):
    """Rayleigh-Ritz pairs of A on span(Y) and their residual norms.

    Parameters
    ----------
    A : ndarray of shape (n, n) or LinearOperator
        Symmetric.
    Y : ndarray of shape (n, c)
        A basis of the trial subspace.

    Returns
    -------
    theta : ndarray of shape (c,), ascending Ritz values
    Y : ndarray of shape (n, c), the Ritz vectors (orthonormal)
    res : ndarray of shape (c,), ``||A y_j - theta_j y_j||``
    """
    op = _as_operator(A)
    Q, _ = linalg.qr(np.asarray(Y), mode="economic")
    AQ = np.asarray(op @ Q)
    H = Q.T @ AQ
    theta, U = linalg.eigh(0.5 * (H + H.T))
    Y, AY = Q @ U, AQ @ U
    return theta, Y, np.linalg.norm(AY - Y * theta, axis=0)


def _exact(A, c, random_state, Y0, dense=False):
    """The c smallest eigenvectors by dense LAPACK (n <= DENSE_EIGH_MAX) or ARPACK."""
    n = A.shape[0]
    if dense or n <= DENSE_EIGH_MAX or c >= n // 5:
        # LAPACK reads one triangle, so a round-off asymmetry of A needs no symmetrised copy
        return partial_eigh(_to_dense(A), c, which="smallest", method="dense")[1]
    return partial_eigh(A, c, which="smallest", method="arpack", X0=Y0,
                        random_state=random_state)[1]


def _checked(op, Y, Q, bound):
    """Y if its residuals are at most ``bound``, else None; never a block worse than Q."""
    if not np.all(np.isfinite(Y)):
        return None
    _, Y, res = eigen_residuals(op, Y)
    if res.max() > bound:
        return None
    return Q if _trace(op, Y) > _trace(op, Q) else Y


def warm_smallest_eigvecs(A, Y0, *, tol=None, maxiter=40, rtol=WARM_RTOL, random_state=None,
                          owner="ufsel"):
    """c smallest eigenvectors of symmetric A (array, sparse or LinearOperator), starting at Y0.

    LOBPCG warm-started from ``Y0``; its Ritz pairs are accepted only when
    every residual ``||A y_j - theta_j y_j||`` is at most ``rtol * ||A||``
    (``||A||`` estimated: the inf-norm bound for explicit matrices, the
    largest ``||A v||`` over the block and a random unit vector for a
    LinearOperator). Otherwise an exact solve replaces them (dense LAPACK
    for ``n <= DENSE_EIGH_MAX`` or ``c >= n / 5``, ARPACK warm-started from
    Y0 above); a ``ConvergenceWarning`` is emitted if even that misses the
    tolerance.

    Parameters
    ----------
    A : (n, n) symmetric
    Y0 : ndarray of shape (n, c)
        Previous eigenvector block (orthonormalised here).
    tol : float, optional
        Absolute residual tolerance (LOBPCG's and the check's); the check
        accepts ``max(tol, rtol * ||A||)``. Default ``rtol * ||A||``.
    maxiter : int
        LOBPCG's iteration limit.
    rtol : float
        Relative residual every returned eigenpair must meet.
    random_state : int, RandomState or None
        Seeds the norm estimate of a LinearOperator and ARPACK's fallback.
    owner : str
        Named in the warning.

    Returns
    -------
    Y : ndarray of shape (n, c), orthonormal, ``Tr(Y^T A Y) <= Tr(Y0^T A Y0)``.
    """
    Q, _ = linalg.qr(np.asarray(Y0, dtype=np.float64), mode="economic")
    n, c = Q.shape
    op = _as_operator(A)
    anorm = max(_norm_estimate(A, op, Q, random_state), np.finfo(float).tiny)
    bound = rtol * anorm if tol is None else max(tol, rtol * anorm)
    if n >= 5 * c + 1:  # LOBPCG's own limit; below it the exact solve is small anyway
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            w, Y = splinalg.lobpcg(op, Q.copy(), largest=False, tol=bound, maxiter=maxiter)
        Y = _checked(op, Y[:, np.argsort(w)], Q, bound)
        if Y is not None:
            return Y
    Y = _exact(A, c, random_state, Q)
    _, Y, res = eigen_residuals(op, Y)
    if res.max() > bound:
        warnings.warn(
            f"{owner}: the eigensolver did not reach residual {bound:.3g} (largest "
            f"{res.max():.3g}, ||A|| ~ {anorm:.3g}); the eigenvectors are inexact. Try "
            "eigen_solver='dense'.",
            ConvergenceWarning, stacklevel=2,
        )
    return Q if _trace(op, Y) > _trace(op, Q) else Y


def resolve_eigen_method(method, n, warm, dense_max=DENSE_EIGH_MAX):
    """The solver that ``method="auto"`` means for an n x n step of :func:`smallest_eigvecs`:
    ``"dense"`` when ``n <= dense_max``, else ``"lobpcg"`` when a warm start exists
    (``warm``), else ``"arpack"``; any other method is returned as given."""
    if method != "auto":
        return method
    return "dense" if n <= dense_max else ("lobpcg" if warm else "arpack")


def smallest_eigvecs(A, c, *, method="auto", Y0=None, dense_max=DENSE_EIGH_MAX,
                     random_state=None, owner="ufsel", tol=None, maxiter=40):
    """The c smallest eigenvectors of symmetric A for one step of an alternating solver.

    Parameters
    ----------
    A : ndarray, sparse matrix or LinearOperator of shape (n, n), symmetric
    c : int
    method : {"auto", "dense", "arpack", "lobpcg"}
        ``"dense"``: exact LAPACK (an implicit A is formed, n x n);
        ``"arpack"``: ARPACK to machine precision (warm-started from the sum
        of Y0's columns; raises ``ArpackNoConvergence`` if it fails);
        ``"lobpcg"``: :func:`warm_smallest_eigvecs` from Y0 (from a random
        block without one), residuals checked; ``"auto"``: ``"dense"`` when
        ``n <= dense_max``, else ``"lobpcg"`` from Y0, or ARPACK when there
        is no Y0 yet.
    Y0 : ndarray of shape (n, c), optional
        The previous block (warm start of the iterative methods).
    dense_max : int
        Largest n that ``"auto"`` solves densely.
    random_state : int, RandomState or None
    owner : str
    tol, maxiter
        LOBPCG's tolerance and iteration limit (``"lobpcg"``; see
        :func:`warm_smallest_eigvecs`).

    Returns
    -------
    Y : ndarray of shape (n, c), orthonormal, eigenvalues ascending.
    """
    if method not in _METHODS:
        raise ValueError(f"method={method!r} not understood, valid options are {set(_METHODS)}.")
    n = A.shape[0]
    method = resolve_eigen_method(method, n, Y0 is not None, dense_max)
    if method == "dense" or c >= n - 1:
        return _exact(A, c, random_state, Y0, dense=True)
    if method == "arpack":
        return partial_eigh(A, c, which="smallest", method="arpack", X0=Y0,
                            random_state=random_state)[1]
    if Y0 is None:
        Y0 = check_random_state(random_state).standard_normal((n, c))
    return warm_smallest_eigvecs(A, Y0, tol=tol, maxiter=maxiter, random_state=random_state,
                                 owner=owner)
