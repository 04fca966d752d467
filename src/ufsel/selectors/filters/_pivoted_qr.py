"""PivotedQR: greedy column subset selection by QR with column pivoting."""

from __future__ import annotations

import numpy as np
from scipy import linalg, sparse

from ...base import BaseSelector, densify
from ...linalg import column_mean_var, constant_features, transpose_dot
from ...utils import import_optional, is_dask_array
from ...utils._memory import dense_copy_term, square_term

__all__ = ["PivotedQR", "pivoted_qr_order"]

#: A round of pivoting ends when the largest residual norm left is at most this
#: fraction of the round's first one: the remaining columns lie in the span of
#: the chosen ones up to round-off (1e-8 is far above the ~1e-15 relative error of
#: the residuals, so which columns end a round does not depend on the BLAS).
RANK_RTOL = 1e-8

#: Squared residual norms are compared after rounding to this fraction of the
#: round's largest, so that residuals equal up to round-off count as ties (broken
#: by content, see PivotedQR) instead of by the last bits the BLAS computed.
TIE_RTOL = 1e-9

#: Rows per block of the tall-skinny QR when n > d (bounded memory).
BLOCK_ROWS = 8192


def _centred_factor(X, mean):
    """A matrix M with ``M^T M = (X - 1 mean^T)^T (X - 1 mean^T)``, ``min(n, d)`` rows or fewer.

    n > d: the R factor of the centred X by a tall-skinny QR over row blocks (sparse
    blocks densified one at a time, so memory is O(d^2 + BLOCK_ROWS d)), for a dask
    array the R factor of dask's tall-skinny QR (:func:`dask.array.linalg.tsqr`, row
    chunks of at least d rows); otherwise the centred X itself (dense).
    """
    n, d = X.shape
    if is_dask_array(X):
        if n <= d:
            X = X.compute()
        else:
            da = import_optional("dask.array", purpose="PivotedQR on a dask array")
            Xc = (X.astype(np.float64) - mean).rechunk({0: max(d, max(X.chunks[0])), 1: -1})
            return np.asarray(da.linalg.tsqr(Xc)[1].compute())
    if n <= d:
        A = densify(X, "PivotedQR")
        return np.asarray(A, dtype=np.float64) - mean
    R = np.zeros((0, d))
    for start in range(0, n, BLOCK_ROWS):
        B = X[start:start + BLOCK_ROWS]
        B = B.toarray() if sparse.issparse(B) else np.asarray(B)
        B = np.asarray(B, dtype=np.float64) - mean
        R = linalg.qr(np.vstack([R, B]), mode="r", overwrite_a=True, check_finite=False)[0]
        R = R[: min(R.shape)]
    return R


def _quantised(values, top):
    """``values`` rounded to TIE_RTOL relative to ``top`` (round-off differences vanish)."""
    return np.round(values / (top * TIE_RTOL)) if top > 0 else values


def _round(Mc, key, rtol):
    """One round of greedy pivoting on the columns of Mc.

    Picks the column of largest squared residual (compared in tie buckets of
    ``TIE_RTOL`` times the largest squared norm; equal ones by ``key``, lower
    first, then by position) until every residual is at most ``rtol`` times the
    largest norm. Returns ``(picks, rel)``: positions in Mc, and
    each pick's residual norm relative to the largest column norm.
    """
    m, nc = Mc.shape
    norms2 = np.einsum("ij,ij->j", Mc, Mc)
    top = float(norms2.max())
    if top <= 0.0:
        return np.zeros(0, dtype=np.intp), np.zeros(0)
    cap = min(m, nc)
    Q = np.zeros((m, cap), order="F")  # orthonormal basis of the picks, filled in place
    taken = np.zeros(nc, dtype=bool)
    picks, rel2 = [], []
    res = norms2.copy()
    ref = res.copy()  # what each residual was last computed from scratch as
    t = 0
    while t < cap:
        cand = np.where(taken, -np.inf, res)
        best = float(cand.max())
        if best <= (rtol**2) * top:
            break
        qkey = _quantised(cand, top)
        tied = np.flatnonzero(qkey == qkey.max())
        i = tied[np.lexsort((tied, key[tied]))[0]]
        Qt = Q[:, :t]
        v = Mc[:, i].copy()
        nv = float(np.linalg.norm(v))
        for _ in range(2):  # classical Gram-Schmidt; again if the norm fell by more
            before = nv     # than 1/sqrt(2) (Kahan's "twice is enough" criterion)
            v -= Qt @ (Qt.T @ v)
            nv = float(np.linalg.norm(v))
            if nv > 0.7071 * before:
                break
        if nv == 0.0:
            break
        q = v / nv
        Q[:, t] = q
        t += 1
        taken[i] = True
        picks.append(i)
        rel2.append(max(best, 0.0) / top)
        res -= (q @ Mc) ** 2
        # where the downdate cancelled (residual below 1e-6 of its last exact value),
        # recompute it exactly and take that as the new reference (as xGEQP3 does)
        stale = (~taken) & (res < 1e-6 * ref)
        if stale.any():
            Qt = Q[:, :t]
            B = Mc[:, stale]
            B = B - Qt @ (Qt.T @ B)
            res[stale] = ref[stale] = np.einsum("ij,ij->j", B, B)
    return np.asarray(picks, dtype=np.intp), np.sqrt(np.asarray(rel2, dtype=np.float64))


def pivoted_qr_order(X, *, rtol=RANK_RTOL):
    """Pivot order of QR with column pivoting on the centred X, restarted when rank runs out.

    Returns
    -------
    order : ndarray of int
        The non-constant features in the order they are chosen.
    residual : ndarray of shape (n_features,)
        Each chosen feature's residual norm when it was chosen, relative to the first
        of its round (1 for a round's first feature, non-increasing within a round).
    rounds : ndarray of shape (n_features,)
        The round (0, 1, ...) in which each feature was chosen; -1 for constant ones.
    """
    n, d = X.shape
    mean, _ = column_mean_var(X)
    M = _centred_factor(X, np.asarray(mean, dtype=np.float64))
    # content key for exact ties: each column's projection on a fixed random sample
    # direction (invariant to the column order, unlike the R factor's columns)
    g = np.random.RandomState(0).standard_normal(n)
    content = np.asarray(transpose_dot(X, g)).ravel() - float(g.sum()) * mean
    active = ~constant_features(X)
    rounds = np.full(d, -1)
    residual = np.zeros(d)
    order = []
    r = 0
    cscale = float(np.abs(content).max())
    while active.any():
        cols = np.flatnonzero(active)
        # ties: larger content key, then lower column index (the order of cols)
        key = -_quantised(content[cols], cscale)
        picks, rel = _round(M[:, cols], key, rtol)
        if not picks.size:  # nothing independent left (cannot happen for active columns)
            break
        chosen = cols[picks]
        order.extend(chosen.tolist())
        rounds[chosen] = r
        residual[chosen] = rel
        active[chosen] = False
        r += 1
    return np.asarray(order, dtype=np.intp), residual, rounds


class PivotedQR(BaseSelector):
    """Greedy column subset selection: QR with column pivoting on the centred data.

    Picks, one at a time, the feature least explained by those already chosen, the
    classical deterministic answer to "which k columns span the data best"
    (Businger and Golub 1965 [1]_; Golub and Van Loan [2]_). Not one of the papers'
    methods: a baseline, and a candidate of :class:`~ufsel.model_selection.AutoSelector`,
    because the features it picks are as unlike each other as the data allow.

    Sparse input is densified one block of rows at a time when n > d. A dask array
    is reduced to its d x d R factor by a tall-skinny QR.

    Parameters
    ----------
    {n_features_to_select}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Score of each feature, higher is better.
    residuals_ : ndarray of shape (n_features,)
        ``rho_j`` above (0 for constant features).
    rounds_ : ndarray of shape (n_features,)
        The pivoting round of each feature (-1 for constant features).
    {selector_attributes}

    See Also
    --------
    MaxVariance : The first pivot is the feature of largest variance.
    ufsel.model_selection.AutoSelector

    Notes
    -----
    With ``X~`` the column-centred data and S the features chosen so far, the next
    feature is ``j = argmax_j ||(I - P_S) x~_j||``, ``P_S`` the orthogonal projection
    onto the span of ``{x~_s : s in S}``. This is the pivot order of QR with column
    pivoting, the usual heuristic for the column subset selection problem
    ``min_{|S| = k} ||X~ - P_S X~||_F``.

    **Interpretations** (the references stop at the rank):

    - Restarts: the centred data have rank at most ``min(n - 1, d)``. Once every
      remaining residual is below 1e-8 times the round's first one, the round ends
      and pivoting restarts on the remaining features alone, so every feature gets a
      rank even when d > n.
    - Ties: squared residual norms are compared after rounding to 1e-9 of the round's
      largest squared column norm, so round-off does not decide; equal ones go to the
      larger projection of the feature on a fixed random direction over the samples,
      then to the lower column index. Only exactly duplicated columns stay tied after
      that, and their order follows the column order. LAPACK's ``xGEQP3`` breaks ties
      by the lower column index and decides near-ties by round-off, so the two orders
      can differ there.
    - Scores: ``scores_[j] = (rounds - round_j - 1) + rho_j``, ``rho_j`` in (1e-8, 1]
      the feature's residual norm when chosen relative to its round's first
      (``residuals_``), so ``ranking_`` is the pivot order. Constant features score 0
      and come last.

    **Computation.** With n > d: the R factor of the centred X by a tall-skinny QR
    over blocks of 8192 rows (``X~^T X~ = R^T R``, so the pivoting is the same), then
    greedy pivoting on the d x d factor, O(n d^2) time and O(d^2) memory (for a dask
    array, the R factor of :func:`dask.array.linalg.tsqr`). With
    d >= n: pivoting on the centred X itself (sparse X densified whole, refused above
    the limit of :func:`ufsel.base.densify`), about d / n rounds of O(n^2 d). The
    residual norms are downdated and recomputed where the downdate cancelled, as in
    ``xGEQP3``. The greedy loop is level-2 BLAS in Python, slower than one
    ``xGEQP3`` call (see the performance guide, :doc:`/guide/performance`).

    References
    ----------
    .. [1] P. Businger, G. H. Golub. Linear least squares solutions by Householder
       transformations. Numer. Math. 7:269-276, 1965.
    .. [2] G. H. Golub, C. F. Van Loan. Matrix Computations, 4th ed., Section 5.4.2.
       Johns Hopkins University Press, 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from ufsel import PivotedQR
    >>> rng = np.random.RandomState(0)
    >>> a, b = rng.randn(50), rng.randn(50)
    >>> X = np.column_stack([a, 3 * a, 0.9 * b + 0.1 * a, 2 * b])
    >>> PivotedQR(n_features_to_select=2).fit(X).get_support()
    array([False,  True, False,  True])
    """

    def __init__(self, n_features_to_select=None):
        super().__init__(n_features_to_select=n_features_to_select)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.supports_dask = True
        return tags

    def _memory_terms(self, shape):
        n, d = shape.n, shape.d
        m = min(n, d)
        terms = super()._memory_terms(shape)
        if n <= d:  # the centred dense X, the column copy each round pivots, its basis
            terms.update(dense_copy_term(shape))
            terms[f"the centred {n} x {d} X and its pivoted copy"] = 2 * n * d * 8
            terms.update(square_term(n, 1, "orthonormal basis"))
        else:  # the R factor of the row-blocked QR, the stacked block, the pivoting copies
            rows = m + (0 if shape.dask else BLOCK_ROWS)
            terms[f"the {m} x {d} R factor of the QR"] = (3 * m + 2 * rows) * d * 8
            terms.update(square_term(m, 1, "orthonormal basis"))
        return terms

    def _fit(self, X):
        d = X.shape[1]
        order, residual, rounds = pivoted_qr_order(X)
        n_rounds = int(rounds.max()) + 1 if order.size else 0
        scores = np.zeros(d)
        chosen = rounds >= 0
        scores[chosen] = (n_rounds - rounds[chosen] - 1) + residual[chosen]
        self.residuals_ = residual
        self.rounds_ = rounds
        tiebreak = np.full(d, d, dtype=np.intp)
        tiebreak[order] = np.arange(order.size)
        return scores, tiebreak
