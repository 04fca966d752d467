"""The l2,1-reweighted ridge regression step shared by NDFS, JELSR and RUFS.

Each of these methods alternates with a step
``W = argmin_W ||A^{1/2} (X W - R)||_F^2 + W^T diag(g) W``, i.e.

    W = (X^T A X + diag(g))^{-1} X^T A R,

with ``g`` the (scaled) l2,1 reweighting of the previous W and ``A`` an
optional diagonal of sample weights (RUFS's robust l2,1 loss). The d x d
system is solved when d <= n; when d > n the push-through identity

    (X^T X + G)^{-1} X^T = G^{-1} X^T (X G^{-1} X^T + I_n)^{-1}

replaces it by an n x n one (dense n x n only in that case, where it is the
smaller of the two).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import linalg, sparse

from ._stats import gram_matrix

__all__ = ["RidgeFactor", "weighted_ridge", "ridge_hat_complement"]


def _spd_solve(A, B):
    """Solve ``A X = B`` for symmetric positive definite A by Cholesky.

    Cholesky is backward stable: the computed X solves a system within
    machine precision of A. scipy's ``LinAlgWarning`` on a tiny reciprocal
    condition number (a far outlier makes ``X^T X`` nearly rank one, rcond
    ~ 1e-18) concerns the forward error only, which the reweighting
    iterations of NDFS / RUFS / JELSR tolerate, so it is not passed on to the
    user. A matrix that is not numerically positive definite still raises
    ``LinAlgError`` (which the selectors' fit turns into ``NumericalError``).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", linalg.LinAlgWarning)
        # potrf + potrs; scipy's solve(assume_a="pos") adds a condition estimate that
        # takes longer than the factorisation itself
        return linalg.cho_solve(linalg.cho_factor(A, check_finite=False), B,
                                check_finite=False)


def _rows_scaled(X, s):
    return sparse.diags(s) @ X if sparse.issparse(X) else X * s[:, None]


def weighted_ridge(X, R, g, *, sample_weight=None, gram=None, method="auto", owner="ufsel"):
    """``W = (X^T A X + diag(g))^{-1} X^T A R`` through the smaller normal equations.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)
    R : ndarray of shape (n, c)
    g : ndarray of shape (d,), positive
    sample_weight : ndarray of shape (n,), positive, optional
        The diagonal of A (None = identity).
    gram : ndarray of shape (d, d), optional
        Precomputed ``X^T X`` (only used without ``sample_weight``, d x d form).
    method : {"auto", "primal", "push_through"}
        ``"auto"``: push-through when d > n.
    owner : str, default="ufsel"
        Name used in error messages (the calling selector).

    Returns
    -------
    W : ndarray of shape (d, c)
    """
    n, d = X.shape
    g = np.asarray(g, dtype=np.float64)
    if method == "auto":
        method = "push_through" if d > n else "primal"
    a_inv = None
    if sample_weight is not None:
        sample_weight = np.asarray(sample_weight, dtype=np.float64)
        gram = None
        if sparse.issparse(X) or method != "push_through":
            sw = np.sqrt(sample_weight)
            R = R * sw[:, None]
            X = _rows_scaled(X, sw)
        else:  # the dense push-through puts A^{-1} on its diagonal instead (below)
            a_inv = 1.0 / sample_weight
    if method == "primal":
        A = gram_matrix(X, owner=owner) if gram is None else gram.copy()
        A[np.diag_indices_from(A)] += g
        rhs = np.asarray(X.T @ R)
        return _spd_solve(A, rhs)
    if method == "push_through":
        ginv = 1.0 / g
        if sparse.issparse(X):
            Xg = _rows_scaled(X.T, ginv).T  # X G^{-1}
            K = Xg @ X.T
            K = K.toarray() if sparse.issparse(K) else np.asarray(K)
            K[np.diag_indices_from(K)] += 1.0
            return np.asarray(Xg.T @ _spd_solve(K, R))
        # Xh Xh^T with Xh = X G^{-1/2}: numpy's symmetric rank-k product, half the flops;
        # and G^{-1} X^T V = G^{-1/2} (Xh^T V), so Xh is the only n x d temporary.
        # With sample weights, (X^T A X + G)^{-1} X^T A = G^{-1} X^T (X G^{-1} X^T + A^{-1})^{-1}:
        # A^{-1} on the diagonal, no second n x d pass to scale the rows. This K is
        # A^{-1/2} K_s A^{-1/2}, K_s = A^{1/2} X G^{-1} X^T A^{1/2} + I the row-scaled form's
        # matrix; Cholesky's error bound depends on a matrix only through its best
        # diagonal scaling (van der Sluis), the same for both.
        rg = np.sqrt(ginv)
        Xh = X * rg
        K = Xh @ Xh.T
        K[np.diag_indices_from(K)] += 1.0 if a_inv is None else a_inv
        V = _spd_solve(K, R)
        return (Xh.T @ V) * rg[:, None]
    raise ValueError(
        f"method={method!r} not understood, valid options are {{'auto', 'primal', 'push_through'}}."
    )


class RidgeFactor:
    """One Cholesky factorisation of ``X^T X + diag(g)`` (or of its n x n push-through form),
    shared by the regression step and the hat-complement operator.

    ``solve(R)`` returns ``W = (X^T X + diag(g))^{-1} X^T R``;
    ``hat_complement(V)`` returns ``(I - X (X^T X + diag(g))^{-1} X^T) V``,
    which by push-through equals ``(X G^{-1} X^T + I)^{-1} V``. The smaller of
    the d x d and n x n systems is factorised (n x n only when d > n).

    With ``mean`` (a d-vector mu), X stands for the centred ``X - 1 mu^T``
    without forming it (sparse X stays sparse): ``X_c W = X W - 1 mu^T W``,
    ``X_c^T R = X^T R - mu 1^T R``, the d x d system uses the scatter matrix
    (pass it as ``gram``) and the n x n one ``X_c G^{-1} X_c^T`` is corrected
    by rank-one terms.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)
        The data.
    g : ndarray of shape (d,)
        The positive diagonal of the ridge term.
    gram : ndarray of shape (d, d) or None, default=None
        Precomputed ``X^T X`` (the scatter matrix with ``mean``) for the d x d
        system.
    mean : ndarray of shape (d,) or None, default=None
        Centre X implicitly at this mean.
    owner : str, default="ufsel"
        Name used in error messages (the calling selector).
    """

    def __init__(self, X, g, *, gram=None, mean=None, owner="ufsel"):
        n, d = X.shape
        self.X = X
        self.mu = None if mean is None else np.asarray(mean, dtype=np.float64)
        g = np.asarray(g, dtype=np.float64)
        self.primal = d <= n
        if self.primal:
            if gram is None:
                gram = gram_matrix(X, owner=owner)
                if self.mu is not None:
                    gram = gram - n * np.outer(self.mu, self.mu)
            A = gram.copy()
            A[np.diag_indices_from(A)] += g
        else:
            self.ginv = 1.0 / g
            self.Xg = _rows_scaled(X.T, self.ginv).T if sparse.issparse(X) else X * self.ginv
            if sparse.issparse(X):
                A = self.Xg @ X.T
                A = A.toarray() if sparse.issparse(A) else np.asarray(A)
            else:  # symmetric rank-k product (half the flops of Xg @ X.T)
                Xh = X * np.sqrt(self.ginv)
                A = Xh @ Xh.T
            if self.mu is not None:  # X_c G^-1 X_c^T = K - b 1^T - 1 b^T + (mu^T G^-1 mu) 1 1^T
                b = np.asarray(self.Xg @ self.mu).ravel()
                A = A - b[:, None] - b[None, :] + float(self.mu @ (self.ginv * self.mu))
                A = 0.5 * (A + A.T)
            A[np.diag_indices_from(A)] += 1.0
        self.cf = linalg.cho_factor(A, check_finite=False)

    def _xt(self, R):
        """``X_c^T R``."""
        out = np.asarray(self.X.T @ R)
        if self.mu is not None:
            out = out - np.multiply.outer(self.mu, R.sum(axis=0))
        return out

    def _x(self, W):
        """``X_c W``."""
        out = np.asarray(self.X @ W)
        if self.mu is not None:
            out = out - (self.mu @ W)[None, ...]
        return out

    def solve(self, R):
        """The regression ``W = (X^T X + diag(g))^{-1} X^T R``.

        Parameters
        ----------
        R : ndarray of shape (n,) or (n, c)
            The responses.

        Returns
        -------
        W : ndarray of shape (d,) or (d, c)
        """
        if self.primal:
            return linalg.cho_solve(self.cf, self._xt(R), check_finite=False)
        V = linalg.cho_solve(self.cf, R, check_finite=False)
        if self.mu is None:
            return np.asarray(self.Xg.T @ V)
        return self.ginv[:, None] * self._xt(V) if V.ndim == 2 else self.ginv * self._xt(V)

    def hat_complement(self, V):
        """``(I - X (X^T X + diag(g))^{-1} X^T) V``.

        Parameters
        ----------
        V : ndarray of shape (n,) or (n, k)
            The vectors to multiply.

        Returns
        -------
        ndarray of the shape of V
        """
        if self.primal:
            return V - self._x(linalg.cho_solve(self.cf, self._xt(V), check_finite=False))
        return linalg.cho_solve(self.cf, V, check_finite=False)


def ridge_hat_complement(X, g, *, gram=None, owner="ufsel"):
    """A function ``v -> (I - X (X^T X + diag(g))^{-1} X^T) v`` (n x n, PSD, never formed).

    See :class:`RidgeFactor` (which also gives the matching regression solve).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)
        The data.
    g : ndarray of shape (d,)
        The positive diagonal of the ridge term.
    gram : ndarray of shape (d, d) or None, default=None
        Precomputed ``X^T X``.
    owner : str, default="ufsel"
        Name used in error messages (the calling selector).
    """
    return RidgeFactor(X, g, gram=gram, owner=owner).hat_complement
