"""The c smallest eigenvectors of a symmetric matrix, determined even when the c-th eigenvalue is tied.

``min_{W^T W = I_c} Tr(W^T P W)`` is attained by the c smallest eigenvectors. When
the c-th eigenvalue equals the (c+1)-th, the minimisers are not unique: any c - lo
dimensional subspace of the tied eigenspace E (dimension m, lo eigenvalues strictly
below it) completes the lo eigenvectors below, and which one LAPACK returns is
round-off. Quantities such as the row norms of W then follow round-off too.

By Ky Fan's theorem the same minimum is attained on the Fantope
``{Pi : 0 <= Pi <= I, Tr Pi = c}``, and its minimisers there are the convex hull of
those projectors. Exactly one of them is unchanged by every rotation within E (hence
by any choice of basis, and equivariant under a permutation of P's rows and
columns): their average,

    Pi = U_below U_below^T + ((c - lo) / m) U_E U_E^T,

which is the expectation of ``W W^T`` over a uniformly random choice of the tied
subspace. The functions here return the diagonal of Pi (W's row norms squared when
there is no tie) and ``Tr(P Pi)`` (the sum of the c smallest eigenvalues).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy import linalg, sparse
from scipy.sparse import linalg as splinalg

from ._local import centered_gram
from ._sparse_reg import row_norms_sq

__all__ = ["TIE_RTOL", "KyFanStep", "centered_row_space", "ky_fan_smallest",
           "ky_fan_smallest_low_rank", "ky_fan_smallest_diag_low_rank"]

#: Two eigenvalues closer than this times ``||P||_F`` count as tied. Exact ties come
#: out of LAPACK a few units of round-off apart, far below this, and real gaps lie far
#: above it (benchmarks/studies/docstring_history.md, UDFS). A gap above the threshold moves the eigenvectors
#: by at most (perturbation / gap), about 1e-2 for a 1e-12 relative perturbation.
TIE_RTOL = 1e-10


class KyFanStep(NamedTuple):
    """One minimisation of ``Tr(W^T P W)`` over ``W^T W = I_c``.

    Parameters
    ----------
    vectors : ndarray of shape (d, c) or None
        A minimiser W (one member of the tied family when ``tied``); None when the
        caller did not need one and computing it would cost more.
    weights : ndarray of shape (d,)
        ``diag(Pi)``, Pi the rotation-invariant minimiser: W's squared row norms when
        not ``tied``, their average over the tied family otherwise.
    trace : float
        ``Tr(P Pi)``, the sum of the c smallest eigenvalues.
    tied : bool
        Whether the c-th eigenvalue was tied with the (c+1)-th.
    factor : ndarray of shape (d, r) or None
        A factor of Pi, ``Pi = factor @ factor.T + complement (I - B B^T)``: from
        :func:`ky_fan_smallest`, ``vectors`` when not ``tied``, otherwise the
        eigenvectors below the tie and ``sqrt((c - lo) / m)`` times the tied ones
        (r = lo + m columns), and ``complement = 0``. From
        :func:`ky_fan_smallest_low_rank` (orthonormal ``basis`` B), the part of Pi
        inside span(B), with the weight of the orthogonal complement in
        ``complement``; for points in span(B) (the rows of the centred X, when B is
        :func:`centered_row_space`) ``x^T Pi y = (factor^T x) . (factor^T y)``.
        Wherever a method uses W only through ``W W^T`` (distances
        ``||W^T (x_i - x_j)||``, traces, row norms), the factor stands in for W.
    complement : float
        See ``factor``: 0, or the weight of every direction orthogonal to the
        subspace of :func:`ky_fan_smallest_low_rank` (1 below the tie, ``(c - lo) / m``
        in it, 0 above).
    """

    vectors: np.ndarray | None
    weights: np.ndarray
    trace: float
    tied: bool
    factor: np.ndarray | None = None
    complement: float = 0.0


def _average(values, counts, columns, c, tau):
    """``diag(Pi)``, ``Tr(P Pi)`` and whether the c-th eigenvalue is tied, from eigenvalue groups.

    Group j has eigenvalue ``values[j]`` with multiplicity ``counts[j]`` and the
    diagonal of its spectral projector in ``columns[:, j]``. Also returns the masks
    of the groups below the tie and in it, and the weight ``(c - lo) / m`` of the tie.
    """
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(counts[order])
    wc = values[order[np.searchsorted(cum, c)]]  # the c-th smallest, with multiplicity
    below = values < wc - tau
    tie = np.abs(values - wc) <= tau
    lo = int(counts[below].sum())
    m = int(counts[tie].sum())
    frac = (c - lo) / m
    weights = columns[:, below].sum(axis=1) + frac * columns[:, tie].sum(axis=1)
    trace = float(np.dot(values[below], counts[below]) + frac * np.dot(values[tie], counts[tie]))
    return weights, trace, m > c - lo, below, tie, frac


def _diagonal_plus_low_rank_norm(diag, basis, K):
    """``||diag(diag) + basis K basis^T||_F`` (orthonormal ``basis``; ``diag`` a scalar or a
    vector), from ``||K||_F``, the cross term ``2 sum_j diag_j (basis K basis^T)_jj`` and
    ``||diag||^2``, without forming the d x d matrix."""
    d = basis.shape[0]
    if np.ndim(diag) == 0:
        square, cross = diag * diag * d, diag * np.trace(K)
    else:
        square = float(np.dot(diag, diag))
        cross = float(np.dot(diag, np.einsum("ij,ij->i", basis @ K, basis)))
    return np.sqrt(max(float(np.sum(K * K) + 2.0 * cross + square), 0.0))


def ky_fan_smallest(P, c, *, rtol=TIE_RTOL):
    """The c smallest eigenvectors of a dense symmetric P, with their rotation-invariant average.

    ``min_{W^T W = I_c} Tr(W^T P W)`` is attained by the c smallest
    eigenvectors. When the c-th eigenvalue equals the (c+1)-th, any choice of
    ``c - lo`` vectors within the tied eigenspace E (dimension m; lo
    eigenvalues lie below it) is a minimiser, and which one LAPACK returns is
    round-off. By Ky Fan's theorem the same minimum is attained on the Fantope
    ``{Pi : 0 <= Pi <= I, Tr Pi = c}``, and exactly one of its minimisers is
    unchanged by every rotation within E (hence by the choice of basis and
    under a permutation of P's rows and columns)::

        Pi = U_below U_below^T + ((c - lo) / m) U_E U_E^T,

    the mean of ``W W^T`` over uniformly random members of the tied family.
    Alternating solvers that use W only through ``diag(W W^T)`` or
    ``W W^T`` (UDFS, SOGFS) take ``weights = diag(Pi)`` or ``factor``.

    c + 1 eigenpairs by LAPACK (``subset_by_index``); only when the c-th and
    (c+1)-th eigenvalues are within ``rtol * ||P||_F`` is the whole spectrum
    computed (divide and conquer) to average over the tied eigenspace. LAPACK
    reads P's lower triangle.

    Parameters
    ----------
    P : ndarray of shape (d, d), symmetric
    c : int, ``1 <= c <= d``
    rtol : float, default=TIE_RTOL (1e-10)
        Eigenvalues closer than ``rtol * ||P||_F`` count as tied.

    Returns
    -------
    KyFanStep
        ``vectors`` (a minimiser), ``weights`` (``diag(Pi)``), ``trace``
        (``Tr(P Pi)``), ``tied`` and ``factor`` (``Pi = factor factor^T``).
    """
    P = np.asarray(P)
    d = P.shape[0]
    if not 1 <= c <= d:
        raise ValueError(f"c must be in [1, {d}], got c={c}.")
    w, V = linalg.eigh(P, subset_by_index=[0, min(c, d - 1)], check_finite=False)
    tau = rtol * float(np.linalg.norm(P))
    if c == d or w[c] - w[c - 1] > tau:
        W = V[:, :c]
        return KyFanStep(W, row_norms_sq(W), float(w[:c].sum()), False, W)
    w, V = linalg.eigh(P, driver="evd", check_finite=False)
    weights, trace, tied, below, tie, frac = _average(w, np.ones(d, dtype=np.int64), V * V,
                                                      c, tau)
    factor = np.hstack([V[:, below], np.sqrt(frac) * V[:, tie]]) if tied else V[:, :c]
    return KyFanStep(V[:, :c], weights, trace, tied, factor)


def ky_fan_smallest_low_rank(M, basis, shift, c, *, rtol=TIE_RTOL, K=None):
    """:func:`ky_fan_smallest` of ``P = M + shift I`` when M vanishes off a subspace.

    ``basis`` (d x r, orthonormal columns) spans a subspace that contains M's
    range, so P has the eigenvalue ``shift`` on its orthogonal complement
    (multiplicity d - r, the diagonal of that projector is
    ``1 - ||basis_j||^2``) and ``shift + kappa_i`` on ``basis @ u_i`` for the
    eigenpairs of the r x r matrix ``basis^T M basis``. Costs ``O(d r^2)`` once
    K is known, instead of the ``O(d^3)`` of a full decomposition of P, which a
    tie at the c-th eigenvalue would otherwise need (the complement's eigenvalue
    is tied d - r times). ``vectors`` is None: a member of the tied family would
    need a basis of the complement. ``factor`` is the part of Pi inside the
    subspace (d x r' with r' <= r) and ``complement`` the weight of the
    complement: ``Pi = factor factor^T + complement (I - basis basis^T)``. ``K``,
    if given, is ``basis^T M basis`` (M is then not used).

    Parameters
    ----------
    M : ndarray of shape (d, d) or None
        Symmetric, with its range inside span(``basis``); not used when ``K`` is
        given.
    basis : ndarray of shape (d, r)
        Orthonormal columns spanning a subspace that contains M's range.
    shift : float
        The multiple of the identity added to M.
    c : int
        Number of eigenvectors (the c smallest eigenvalues).
    rtol : float, default=1e-10
        Eigenvalues within ``rtol ||P||_F`` of each other count as tied.
    K : ndarray of shape (r, r) or None, default=None
        ``basis^T M basis``, when already known.

    Returns
    -------
    KyFanStep
    """
    d, r = basis.shape
    if not 1 <= c <= d:
        raise ValueError(f"c must be in [1, {d}], got c={c}.")
    if K is None:
        K = basis.T @ (M @ basis)
    if r:
        kappa, U = linalg.eigh(0.5 * (K + K.T), driver="evd", check_finite=False)
        V = basis @ U
    else:
        kappa, V = np.zeros(0), np.zeros((d, 0))
    norm = _diagonal_plus_low_rank_norm(shift, basis, K)
    values = np.concatenate([shift + kappa, [shift]]) if r < d else shift + kappa
    counts = np.ones(values.size, dtype=np.int64)
    columns = V * V
    if r < d:
        counts[-1] = d - r
        columns = np.column_stack([columns, 1.0 - row_norms_sq(basis)])
    weights, trace, tied, below, tie, frac = _average(values, counts, columns, c, rtol * norm)
    factor = np.hstack([V[:, below[:r]], np.sqrt(frac) * V[:, tie[:r]]])
    complement = (1.0 if below[-1] else frac if tie[-1] else 0.0) if r < d else 0.0
    return KyFanStep(None, weights, trace, tied, factor, complement)


def centered_row_space(X):
    """Orthonormal basis (d x r) of the row space of the centred X, for d > n.

    From the n x n centred Gram matrix ``H X X^T H`` (sparse X is never centred or
    densified): its eigenvectors U with eigenvalues above ``lambda_max max(n, d) eps``
    (below that a Gram eigenvalue is round-off) give ``(X - 1 mu^T)^T U``, which spans
    the row space and is orthonormalised by a QR factorisation. A direction v left
    out has ``||X_c v||^2`` below that bound, so for ``M = X_c^T L X_c`` (L 1 = 0:
    UDFS's and SOGFS's matrices) ``v^T M v <= ||L|| ||X_c v||^2`` is of the size of
    the round-off in M itself: the subspace contains M's range up to round-off, as
    :func:`ky_fan_smallest_low_rank` needs.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d)

    Returns
    -------
    ndarray of shape (d, r), r <= n - 1
    """
    n, d = X.shape
    G = X @ X.T
    G = G.toarray() if sparse.issparse(G) else np.asarray(G, dtype=np.float64)
    G = centered_gram(G)
    lam, U = linalg.eigh(0.5 * (G + G.T), check_finite=False)
    keep = lam > max(lam[-1], 0.0) * max(n, d) * np.finfo(np.float64).eps
    if not keep.any():
        return np.zeros((d, 0))
    U = U[:, keep]
    mu = np.asarray(X.mean(axis=0)).ravel()
    B = np.asarray(X.T @ U) - np.outer(mu, U.sum(axis=0))
    return linalg.qr(B / np.sqrt(lam[keep]), mode="economic", check_finite=False)[0]


class RowSpaceQuadratic:
    """``P = diag(v) + s X^T L X`` for d > n, through the row space of the centred X.

    For any L with ``L 1 = 0`` (a graph Laplacian, UDFS's local scatter), ``X^T L X``
    vanishes off the row space of the centred X (basis B, d x r with r <= n - 1, from
    :func:`centered_row_space`), so ``X^T L X = B K B^T`` with the r x r
    ``K = (X B)^T L (X B)``: UDFS's ``M + gamma D`` and SOGFS's
    ``2 X^T L_S X + gamma Q`` are diagonal plus rank r. B and ``X B`` are computed
    once; ``reduced(L)`` gives K for each L (sparse X is not densified).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n, d), d > n
    scale : float, default=1.0
        s.
    """

    def __init__(self, X, scale=1.0):
        self.basis = centered_row_space(X)
        self.XB = np.asarray(X @ self.basis)
        self.scale = float(scale)

    def reduced(self, L):
        """``K = s (X B)^T L (X B)``, symmetrised."""
        K = self.scale * (self.XB.T @ (L @ self.XB))
        return 0.5 * (K + K.T)

    def woodbury_pays_off(self):
        """Whether ARPACK through the Woodbury identity
        (:func:`ky_fan_smallest_diag_low_rank`) is worth it: only when the rank r is well
        below d, d >= 2 r (with r close to d the dense solves are faster)."""
        return self.basis.shape[0] >= 2 * self.basis.shape[1]

    def first_step(self, K, shift, c):
        """:func:`ky_fan_smallest_low_rank` of ``shift I + B K B^T`` (a uniform diagonal)."""
        return ky_fan_smallest_low_rank(None, self.basis, shift, c, K=K)

    def step(self, K, diag, c):
        """:func:`ky_fan_smallest_diag_low_rank` of ``diag(diag) + B K B^T``, or None."""
        return ky_fan_smallest_diag_low_rank(diag, self.basis, K, c)


def ky_fan_smallest_diag_low_rank(diag, basis, K, c, *, rtol=TIE_RTOL, residual_rtol=1e-10):
    """:func:`ky_fan_smallest` of ``P = diag(diag) + basis K basis^T`` without forming P.

    For ``diag > 0`` and K symmetric positive semi-definite (r x r, ``basis`` d x r
    with orthonormal columns, r < d): UDFS's reweighted matrix ``gamma D + X_c^T L X_c``
    when d > n, SOGFS's ``gamma Q + 2 X^T L_S X``. ARPACK finds the c + 1 largest
    eigenvalues of ``P^{-1}``, applied by the Woodbury identity

        P^{-1} = D^{-1} - D^{-1} Q K (I + C K)^{-1} Q^T D^{-1},  C = Q^T D^{-1} Q,

    in O(d r) per product after an O(d r^2) set-up (``I + C K`` is invertible: C K is
    similar to the PSD ``C^{1/2} K C^{1/2}``), instead of the O(d^3) of a dense
    decomposition. ARPACK runs to machine precision from a seeded random start (an
    all-ones start is orthogonal to some eigenvectors, such as ``e_i - e_j`` for
    duplicate features, which Lanczos then finds only through round-off; the
    converged eigenpairs do not depend on the start beyond round-off). The eigenpairs
    are accepted only when every residual ``||P v - lambda v||`` is at most
    ``residual_rtol (max(diag) + ||K||_F)`` and the c-th eigenvalue is not tied with
    the (c+1)-th (``rtol ||P||_F``); otherwise None is returned and the caller solves
    densely.

    When the c + 1 pairs do not converge (typical once a reweighting has
    concentrated on c features: the eigenvalues above the c-th are then those of
    nearly equal, very large diagonal entries, a cluster that Lanczos resolves
    slowly), only c pairs are computed, and the tie test uses Weyl's inequality
    instead: adding the PSD ``basis K basis^T`` lowers no eigenvalue, so the
    (c+1)-th eigenvalue of P is at least the (c+1)-th smallest entry of ``diag``.

    Parameters
    ----------
    diag : ndarray of shape (d,)
        The positive diagonal part of P.
    basis : ndarray of shape (d, r)
        Orthonormal columns spanning the low-rank part.
    K : ndarray of shape (r, r)
        Symmetric positive semi-definite; the low-rank part is ``basis K
        basis^T``.
    c : int
        Number of eigenvectors (the c smallest eigenvalues).
    rtol : float, default=1e-10
        Eigenvalues within ``rtol ||P||_F`` of each other count as tied.
    residual_rtol : float, default=1e-10
        Largest accepted residual, relative to ``max(diag) + ||K||_F``.

    Returns
    -------
    KyFanStep or None
    """
    d, r = basis.shape
    if not 1 <= c < d - 1 or np.any(diag <= 0):
        return None
    dinv = 1.0 / diag
    C = basis.T @ (dinv[:, None] * basis)
    lu = linalg.lu_factor(np.eye(r) + C @ K, check_finite=False)

    def apply_inverse(Y):
        Z = dinv[:, None] * Y.reshape(d, -1)
        S = linalg.lu_solve(lu, basis.T @ Z, check_finite=False)
        return Z - dinv[:, None] * (basis @ (K @ S))

    op = splinalg.LinearOperator((d, d), matvec=lambda v: apply_inverse(v).ravel(),
                                 matmat=apply_inverse, dtype=np.float64)
    bound = residual_rtol * (float(diag.max()) + float(np.linalg.norm(K)))

    def smallest(k):
        """The k smallest eigenpairs of P, ascending, or None (no convergence, or a
        residual above the bound)."""
        try:
            # A seeded random start, not the all-ones vector: Lanczos never finds, in
            # exact arithmetic, an eigenvector orthogonal to its start (e_i - e_j for
            # duplicate features i, j); it would then depend on round-off to do so.
            v0 = np.random.default_rng(0).uniform(-1.0, 1.0, d)
            mu, V = splinalg.eigsh(op, k=k, which="LA", tol=0, v0=v0,
                                   ncv=min(d, max(2 * k + 1, 40)))
        except splinalg.ArpackNoConvergence:
            return None
        order = np.argsort(-mu)
        lam, V = 1.0 / mu[order], V[:, order]
        PV = diag[:, None] * V + basis @ (K @ (basis.T @ V))
        res = np.linalg.norm(PV - V * lam, axis=0)
        if not np.all(np.isfinite(res)) or res.max() > bound:
            return None
        return lam, V

    tau = rtol * _diagonal_plus_low_rank_norm(diag, basis, K)
    pairs = smallest(c + 1)
    if pairs is not None:
        lam, V = pairs
        if lam[c] - lam[c - 1] <= tau:
            return None
    else:
        pairs = smallest(c)
        if pairs is None:
            return None
        lam, V = pairs
        if np.partition(diag, c)[c] - lam[c - 1] <= tau:  # Weyl: lam[c] >= diag's (c+1)-th
            return None
    W = V[:, :c]
    return KyFanStep(W, row_norms_sq(W), float(lam[:c].sum()), False, W)
