"""SOGFS: Structured Optimal Graph Feature Selection (Nie, Zhu, Li, AAAI 2016)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from scipy import sparse
from sklearn.utils._param_validation import Interval

from ..._iterate import ObjectiveTracker
from ...base import (
    BaseSelector,
    densify,
    warn_not_converged,
)
from ...graph import (
    adaptive_neighbors,
    graph_laplacian,
    laplacian_smallest,
    nearest_by_exact_distance,
    null_space_dimension,
    padded_rows,
)
from ...graph._memory import knn_terms
from ...linalg import (
    RowSpaceQuadratic,
    center_unit_norm,
    check_gram_size,
    ky_fan_smallest,
    l2p_norm,
    l2p_reweight_from_sq,
    project_simplex,
)
from ...utils._memory import dense_copy_term, densified, embedding_term, gram_term, square_term

__all__ = ["SOGFS", "sogfs_objective"]

#: Thresholds of the reference code's rank test on the Laplacian spectrum.
_RANK_TOL_C, _RANK_TOL_C1 = 1e-9, 1e-11


def _laplacian(S):
    A = 0.5 * (S + S.T)
    return graph_laplacian(A.tocsr())


def sogfs_objective(X, W, S, F, *, alpha, gamma, lam, eps=2.220446049250313e-16):
    """The SOGFS objective.

    ``sum_ij (||W^T x_i - W^T x_j||^2 s_ij + alpha s_ij^2) + gamma ||W||_{2,1}
    + 2 lam Tr(F^T L_S F)``, with ``L_S = D - (S + S^T)/2`` and the l2,1 norm
    smoothed as ``sum_i sqrt(||w^i||^2 + eps)`` (the quantity the reweighted
    W-step decreases).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    W : ndarray of shape (n_features, m)
    S : sparse matrix of shape (n_samples, n_samples), rows on the simplex
    F : ndarray of shape (n_samples, c)
    """
    L = _laplacian(S)
    Z = X @ W
    fit = 2.0 * float(np.sum(Z * (L @ Z)))
    reg = alpha * float(S.multiply(S).sum())
    rank = 2.0 * lam * float(np.sum(F * (L @ F)))
    return fit + reg + gamma * l2p_norm(W, 1.0, eps) + rank


def _w_step(XtLX, q, gamma, m):
    """One reweighted step for ``min 2 Tr(W^T X^T L X W) + gamma ||W||_{2,1}``, ``W^T W = I``.

    ``q`` is the diagonal of the l2,1 reweighting at the previous W (None: the first
    step, unit weights). Returns the :class:`ufsel.linalg.KyFanStep`: the m smallest
    eigenvectors, or, when the m-th eigenvalue is tied, the average over the tied
    eigenspace (its ``factor`` stands in for W, which SOGFS uses only through
    ``W W^T``; its ``weights`` are ``diag(W W^T)``).
    """
    d = XtLX.shape[0]
    q = np.ones(d) if q is None else q
    Mw = 2.0 * XtLX
    Mw[np.diag_indices_from(Mw)] += gamma * q
    Mw = 0.5 * (Mw + Mw.T)
    return ky_fan_smallest(Mw, m)


def _candidates(knn_idx, S):
    """Per-row candidate neighbours: the k-NN in the projected space plus the current support.

    Returns an int array (n, w) padded with -1, without duplicates.
    """
    old, _, _ = padded_rows(S)
    C = np.concatenate([knn_idx.astype(np.intp), old], axis=1)
    C.sort(axis=1)
    dup = np.zeros(C.shape, dtype=bool)
    dup[:, 1:] = C[:, 1:] == C[:, :-1]
    C[dup] = -1
    return C


def _s_step(Z, F, C, alpha, lam):
    """Exact S-step restricted to each row's candidate set.

    ``s_i = argmin_{s_i in simplex} sum_j (dx_ij + lam df_ij) s_ij + alpha s_ij^2``
    = projection of ``-(dx_i + lam df_i) / (2 alpha)`` onto the simplex.
    """
    n = Z.shape[0]
    valid = C >= 0
    Cj = np.where(valid, C, 0)
    dx = np.sum((Z[:, None, :] - Z[Cj]) ** 2, axis=2)
    df = np.sum((F[:, None, :] - F[Cj]) ** 2, axis=2)
    V = -(dx + lam * df) / (2.0 * alpha)
    rowmax = np.max(np.where(valid, V, -np.inf), axis=1)
    V = np.where(valid, V, rowmax[:, None] - 2.0)  # padded entries fall below the threshold
    P = project_simplex(V)
    rows = np.broadcast_to(np.arange(n)[:, None], C.shape)
    S = sparse.csr_matrix((P[valid], (rows[valid], C[valid])), shape=(n, n))
    S.eliminate_zeros()
    return S


def _initial_f(L, c, random_state):
    """The first F: the c smallest eigenvectors of ``L_S``, or, when the graph has q > c
    connected components (eigenvalue 0 repeated q times, so any c of its eigenvectors
    are a round-off choice), the average of ``F F^T`` over that eigenspace,
    ``(c / q) U U^T``, through its factor ``sqrt(c / q) U`` (U the q normalised
    component indicators). F enters SOGFS only through ``F F^T`` (the distances
    ``||f_i - f_j||^2`` and the trace)."""
    q = null_space_dimension(L) + 1
    if q > c:
        _, U = laplacian_smallest(L, q, random_state=random_state)
        return np.sqrt(c / q) * U
    return laplacian_smallest(L, c, random_state=random_state)[1]


class SOGFS(BaseSelector):
    """Unsupervised feature selection with Structured Optimal Graph (SOGFS).

    Learns an orthonormal projection W, a similarity graph S with exactly c connected
    components on the projected samples, and its spectral embedding F together; an
    l2,1 penalty makes W row-sparse (Nie, Zhu and Li, AAAI 2016 [1]_). Features are
    ranked by the row norms of W; ask for at most ``n_components`` features (see
    Notes).

    Sparse input is densified.

    Parameters
    ----------
    {n_features_to_select}
    n_clusters : int, default=5
        c, the number of connected components of the learnt graph.
    n_components : int or None, default=None
        m, the projection dimension (columns of W); None means
        ``min(n_clusters, n_features)``.
    gamma : float, default=200.0
        Weight of the l2,1 norm (see the note on the factor 2).
    n_neighbors : int, default=5
        k, for the initial CAN graph and the candidate neighbourhoods.
    adapt_lambda : bool, default=True
        Adapt lambda after each F-step, the reference code's heuristic (see Notes);
        with False lambda stays fixed and ``objective_`` is monotone.
    max_iter : int, default=50
        The reference code's NITER.
    tol : float, default=1e-6
        Relative objective change that stops the iterations (with
        ``adapt_lambda=False``).
    random_state : int, RandomState or None, default=None
        Seeds the sparse eigensolver's start vector (large n).
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        ``||w^i||_2^2`` (``diag(Pi)`` when the last W-step was tied).
    W_ : ndarray of shape (n_features, m)
        The last W-step's eigenvectors (one member of the tied family when
        that step was tied).
    tied_ : bool
        Whether the last W-step's m-th eigenvalue was tied.
    S_ : sparse matrix of shape (n_samples, n_samples), the learnt graph
    lambda_ : float, final lambda
    objective_ : list of float
        Objective value after each iteration (see Notes).
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    UFSA
        Adaptive graph on the projected samples, with soft labels.
    UDFS
        Local discriminative analysis with an l2,1 penalty.

    Notes
    -----
    **Objective** (as the authors' code ``SOGFS.m`` minimises it; the paper's text was
    not available for checking, so the formulas are written out in full)::

        min_{S, W, F}  sum_ij (||W^T x_i - W^T x_j||^2 s_ij + alpha s_ij^2)
                       + gamma ||W||_{2,1} + 2 lambda Tr(F^T L_S F)
        s.t. s_i^T 1 = 1, s_i >= 0, W^T W = I, F^T F = I

    ``L_S = D - (S + S^T) / 2``; the last term relaxes ``rank(L_S) = n - c``.

    **Alternating steps**:

    - S: ``s_i`` is the projection of ``-(d^x_i + lambda d^f_i) / (2 alpha)`` onto the
      simplex, ``d^x_ij = ||W^T x_i - W^T x_j||^2``, ``d^f_ij = ||f_i - f_j||^2``;
    - W: the m smallest eigenvectors of ``2 X^T L_S X + gamma Q``,
      ``q_ii = 1 / (2 sqrt(||w^i||^2 + eps))``;
    - F: the c smallest eigenvectors of ``L_S``.

    **Interpretations and reference-code details** (Feiping Nie's ``SOGFS.m``,
    ``InterationW.m``, ``EProjSimplex_new.m``):

    - Features are centred and scaled to unit L2 norm first, as in the reference.
    - Initial graph: CAN adaptive neighbours (k = ``n_neighbors``) on X; ``alpha`` and
      the initial ``lambda`` are CAN's ``r = mean_i (k d_{i,k+1} - sum_{j<=k} d_ij) / 2``.
    - Sparse S-step: row i is optimised over its k nearest neighbours in the
      projected space and its current support, so the step never increases the
      objective and S has O(n k) non-zeros. Distances are computed from differences,
      with ties to the smaller index (:func:`ufsel.graph.nearest_by_exact_distance`):
      once W selects features that rarely vary, many samples project to almost one
      point, where expanded distances would be rounding.
    - When the initial graph has more than c components, the first F is the average
      of ``F F^T`` over the null space of ``L_S`` (``(c / q) U U^T`` for q components),
      not a round-off choice of c of them.
    - One reweighting step per outer iteration for W (the reference runs the inner
      loop to convergence); each decreases the W-part of the objective. The factor 2
      in ``2 X^T L_S X`` comes from the double sum; the reference drops it, so its
      ``gamma = 100`` is ``gamma=200`` here (the default).
    - ``adapt_lambda=True`` (the reference's heuristic): after each F-step lambda
      doubles if the c smallest Laplacian eigenvalues sum to more than 1e-9, and
      halves (with F restored) if the c + 1 smallest sum to less than 1e-11; the
      fit stops when the graph has exactly c components. ``objective_`` is monotone
      only with ``adapt_lambda=False``, where the relative tolerance stops it.
    - A tied W-step (a deviation from the reference, as in :class:`UDFS`): when the
      m-th eigenvalue is tied with the (m+1)-th, as always in the first step when
      d > n, ``W W^T`` is replaced by its average over the tied eigenspace
      (:func:`ufsel.linalg.ky_fan_smallest`), through a factor used wherever W is.
      The next S-step then takes its candidates by its own cost
      ``d^x + lambda d^f``, which resolves the remaining ties by F.
    - When d > n the first W-step is solved on X's row space
      (:func:`ufsel.linalg.centered_row_space`,
      :func:`ufsel.linalg.ky_fan_smallest_low_rank`), and later ones (d >= 2 r,
      gamma > 0) by ARPACK through the Woodbury identity
      (:func:`ufsel.linalg.ky_fan_smallest_diag_low_rank`) with a checked dense
      fallback, so no d x d matrix is formed unless a step falls back.

    **Known behaviour.** Under ``W^T W = I``, ``Tr(W^T X^T L_S X W)`` is smallest along
    directions where ``X w`` is nearly constant, so on images with nearly constant
    background pixels the W-step prefers pixels that rarely light up, and SOGFS can
    select worse than random subsets; the reference code behaves the same. With
    gamma large against the eigenvalues of ``2 X^T L_S X`` the l2,1 term makes W a
    coordinate selection: m rows of norm 1 and the rest near 0, so ranks beyond m
    follow first-order couplings, not the objective.

    Each iteration costs a k-NN search in m dimensions, ``X^T L_S X``
    (O(nnz(L) d + n d^2)), the m smallest eigenpairs of a d x d matrix (dense LAPACK)
    and c + 1 eigenpairs of the sparse Laplacian (shift-invert ARPACK; dense up to
    200 samples); memory O(n k + d^2).

    See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] F. Nie, W. Zhu, X. Li. Unsupervised feature selection with
       structured graph optimization. AAAI 2016.
    .. [2] F. Nie, W. Zhu, X. Li. Structured graph optimization for
       unsupervised feature selection. IEEE TKDE 33(3), 2021 (online 2019).

    Examples
    --------
    >>> from ufsel import SOGFS
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, y, informative = make_planted_clusters(random_state=0)
    >>> SOGFS(n_features_to_select=5, n_clusters=4, random_state=0).fit(X).transform(X).shape
    (200, 5)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "adapt_lambda": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_features_to_select=None, *, n_clusters=5, n_components=None,
                 gamma=200.0, n_neighbors=5, adapt_lambda=True, max_iter=50, tol=1e-6,
                 random_state=None, verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.gamma = gamma
        self.n_neighbors = n_neighbors
        self.adapt_lambda = adapt_lambda
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def _memory_terms(self, shape):
        n, d = shape.n, shape.d
        return {**super()._memory_terms(shape), **dense_copy_term(shape),
                f"the centred {n} x {d} X": n * d * 8, **gram_term(d, 3),
                **knn_terms(densified(shape), self.n_neighbors), **embedding_term(n, self.n_clusters),
                **square_term(n, 2.5, "distance and similarity")}

    @staticmethod
    def _scatter(X, L):
        """``X^T L X`` (d x d, dense), refused with a clear error above the size limit."""
        check_gram_size(X.shape[1], "SOGFS")
        return X.T @ (L @ X)

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        k, c = self.n_neighbors, self.n_clusters
        m = self.n_components or min(c, d)
        rng = self._start_fit(X, n_neighbors=k + 1)
        if m > d:
            raise ValueError(f"{name}: n_components={m} exceeds the number of features ({d}). "
                             f"Pass n_components <= {d}.")
        X = center_unit_norm(densify(X, name))
        eps = np.finfo(float).eps

        S, lambdas = adaptive_neighbors(X, k)  # CAN's graph (exact distances, ties by index)
        r = float(np.mean(lambdas))
        alpha = r if r > 0 else 1.0
        lam = alpha
        L = _laplacian(S)
        # d > n: the W-steps on X's row space, the later ones through the Woodbury
        # identity where that pays off (as in UDFS)
        wide = RowSpaceQuadratic(X, scale=2.0) if d > n else None
        woodbury = wide is not None and self.gamma > 0 and wide.woodbury_pays_off()
        if wide is not None:
            step = wide.first_step(wide.reduced(L), self.gamma, m)
        else:
            step = _w_step(self._scatter(X, L), None, self.gamma, m)
        W = step.factor
        F = _initial_f(L, c, rng)

        track = ObjectiveTracker(name, self.max_iter, self.tol,
                                 advice="Decrease gamma or standardise the data.",
                                 verbose=self.verbose)
        self.objective_ = track.values
        converged = False
        for it in range(1, self.max_iter + 1):
            Z = X @ W if W.shape[1] else np.zeros((n, 1))  # W W^T may vanish on X's rows
            # after a tied W-step the projected distances (those of the average Pi) tie
            # within whole groups of samples; the candidates are then the k nearest in the
            # S-step's own cost d^x + lambda d^f, which resolves those ties by F. Either
            # way by distances from differences, ties to the smaller index: rounding does
            # not choose among (nearly) coincident points
            _, knn_z = nearest_by_exact_distance(
                np.hstack([Z, np.sqrt(lam) * F]) if step.tied else Z, k)
            S = _s_step(Z, F, _candidates(knn_z, S), alpha, lam)
            L = _laplacian(S)
            q = l2p_reweight_from_sq(step.weights, 1.0, eps)  # at diag(W W^T)
            new = wide.step(wide.reduced(L), self.gamma * q, m) if woodbury else None
            step = new if new is not None else _w_step(self._scatter(X, L), q, self.gamma, m)
            W = step.factor
            F_old = F
            ev, Fn = laplacian_smallest(L, min(c + 1, n), random_state=rng)
            F = Fn[:, :c]
            obj = sogfs_objective(X, W, S, F, alpha=alpha, gamma=self.gamma, lam=lam, eps=eps)
            track.append(obj)
            if self.adapt_lambda:
                if ev[:c].sum() > _RANK_TOL_C:
                    lam *= 2.0
                elif ev[: c + 1].sum() < _RANK_TOL_C1 and c < n:
                    lam /= 2.0
                    F = F_old
                elif it > 1:
                    converged = True
            elif track.converged:
                converged = True
            if converged:
                break
        if not converged:
            warn_not_converged(name, self.max_iter, track.last_change, self.tol)
        self.n_iter_ = it
        self.W_, self.S_, self.lambda_ = step.vectors, S, lam
        self.tied_ = bool(step.tied)
        return step.weights
