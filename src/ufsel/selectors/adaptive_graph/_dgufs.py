"""DGUFS: Dependence Guided Unsupervised Feature Selection (Guo & Zhu, AAAI 2018)."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from scipy import linalg
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval
from threadpoolctl import ThreadpoolController

from ..._iterate import ObjectiveTracker, PerCountRankingsMixin
from ...base import BaseSelector, densify
from ...graph._memory import knn_terms
from ...linalg import partial_eigh
from ...utils._memory import dense_copy_term, densified, square_term

__all__ = ["DGUFS", "dgufs_objective"]

#: DGUFS keeps several dense n x n matrices (S, L, M, the multiplier); larger inputs raise.
MAX_SAMPLES = 5000

#: Up to this order the rank proximal step uses a dense LAPACK solve (the eigenpairs
#: above the threshold, ``eigh(subset_by_value=...)``); above it, ARPACK for the largest
#: eigenpairs, enlarged until the smallest one found is below the threshold. The
#: threshold often lies inside a continuum of eigenvalues, where ARPACK needs many
#: products per call and is slower than LAPACK on the whole matrix.
_DENSE_PROX_MAX = 2500


def _one_blas_thread(controller):
    """A context that keeps the BLAS on one thread (for the products between two
    eigensolves of a fit); ``controller`` is a ``threadpoolctl.ThreadpoolController``
    (made once per fit: it scans the loaded libraries).

    With several OpenBLAS threads, a multi-threaded level-3 product between two
    eigensolves slows the next eigensolve down. The products between the
    eigensolves are small next to them (n x n x r with r the rank, often tens), so
    they run on one thread; the eigensolves keep every thread.
    """
    return controller.limit(limits=1, user_api="blas")


def _y_step(Xc, L, m, factors=None):
    """Exact Y-step: ``argmin_Y -Tr(Y H L H Y^T)`` over the feasible Y.

    The feasible Y equal ``X^T`` on m rows and are zero elsewhere (the two
    l2,0 constraints together), and ``Tr(Y H L H Y^T)`` is a sum over the
    rows of Y, so the minimiser keeps the m features of largest
    ``s_j = x~_j^T L x~_j`` (``x~_j`` = centred column j of X, i.e. row j of
    ``X^T H0``). Ties go to the lower feature index (the order of
    ``ranking_``). With ``factors = (V, w)``, ``L = V diag(w) V^T`` and the
    scores cost O(n d r) instead of O(n^2 d).

    Returns ``(scores, keep)``: s for every feature and the m indices kept (sorted).
    """
    if factors is None:
        scores = np.einsum("ij,ij->j", L @ Xc, Xc)
    else:
        V, w = factors
        P = Xc.T @ V
        scores = (P * P) @ w
    keep = np.sort(np.lexsort((np.arange(scores.size), -scores))[:m])
    return scores, keep


def _rank_prox(A, eta, *, k_hint=None, random_state=None, overwrite_a=False):
    """``argmin_P ||P - A||_F^2 + eta rank(P)`` over PSD P, A symmetric.

    The eigenvalues of A above ``sqrt(eta)`` are kept (each kept eigenvalue
    lambda lowers ``||P - A||^2`` by ``lambda^2`` and costs eta). Returns the
    kept eigenpairs ``(w, V)``, ``P = V diag(w) V^T`` (possibly rank 0).

    Solvers, all exact up to LAPACK's / ARPACK's accuracy:

    - n <= ``_DENSE_PROX_MAX``, or no ``k_hint`` (the first L-step): dense
      LAPACK. When the rank is expected to be large (no hint, or a previous
      rank above n / 4), every eigenpair by divide and conquer (``evd``);
      otherwise only those above the threshold (``evr``,
      ``subset_by_value``). Both start with the same tridiagonal reduction;
      the MRRR back-transformation of a few hundred vectors costs more than
      divide and conquer's of all n, of a few tens less.
    - larger n: ARPACK for the largest ``k`` eigenpairs (``k`` starting at
      ``k_hint + 8``, doubled until the smallest found is below the
      threshold; dense LAPACK once k exceeds n / 10, where ARPACK is no
      faster).

    ``overwrite_a=True`` lets the dense solver destroy A (no n x n copy). A
    C-ordered A is then passed as its Fortran-ordered transpose, and LAPACK
    reads that transpose's lower triangle, i.e. A's upper triangle (A may be
    symmetric only to rounding, as the L-step's input is; either triangle
    defines the same matrix up to rounding). Not ``lower=False`` on the
    transpose, which would read A's lower triangle: OpenBLAS's reduction of an
    upper triangle is slower with several threads.
    """
    thr = np.sqrt(eta)
    n = A.shape[0]
    k = max(int(k_hint or 0) + 8, 16)
    # without a hint (the first L-step, where the rank is often a large fraction of n),
    # LAPACK directly rather than a sequence of ARPACK calls that end there
    while n > _DENSE_PROX_MAX and k_hint is not None and k <= n // 10:
        w, V = partial_eigh(A, k, which="largest", method="arpack", random_state=random_state)
        if w[0] <= thr:
            keep = w > thr
            return w[keep], V[:, keep]
        k *= 2
    if overwrite_a and A.flags.c_contiguous and not A.flags.f_contiguous:
        A = A.T  # Fortran order, so LAPACK works in A's memory (its upper triangle)
    if k_hint is None or k_hint > n // 4:
        w, V = linalg.eigh(A, driver="evd", check_finite=False, overwrite_a=overwrite_a)
    else:
        w, V = linalg.eigh(A, subset_by_value=(thr, np.inf), check_finite=False,
                           overwrite_a=overwrite_a)
    keep = w > thr  # subset_by_value's interval is half-open on the left
    return w[keep], V[:, keep]


def _binary_prox(Q, g, out=None):
    """``argmin_P ||P - Q||_F^2 + g ||P||_0``, entrywise, P in {0, 1} (``g > 1``) or [0, 1].

    The reference ``solve_l0_binary``: with ``g > 1`` an entry is 1 when
    ``(Q - 1)^2 + g < Q^2``, i.e. ``Q > (g + 1) / 2``; with ``g <= 1`` an
    entry is ``clip(Q, 0, 1)`` when that beats 0 by more than g, i.e.
    ``Q >= sqrt(g)`` (then ``Q > 1`` gives 1). ``out`` (float64, Q's shape,
    not Q itself) receives P.
    """
    P = np.empty_like(Q) if out is None else out
    if g > 1:
        np.copyto(P, Q > 0.5 * (g + 1.0))
        return P
    # min(Q, 1) where Q >= sqrt(g), else 0, without a masked assignment (slower on
    # n x n arrays): clip, then multiply by the 0-1 mask
    np.clip(Q, 0.0, 1.0, out=P)
    np.multiply(P, Q >= np.sqrt(g), out=P)
    return P


def _l_step(M, G, Lam, mu, alpha, *, k_hint=None, random_state=None, overwrite_g=False):
    """Exact L-step of the augmented Lagrangian.

    ``argmin_{L PSD} -<G, L> + alpha rank(L) + <Lam, L - M> + mu/2 ||L - M||^2``
    ``= argmin ||L - T||^2 + (2 alpha / mu) rank(L)``, ``T = M + (G - Lam) / mu``.
    Returns the eigenpairs of L. ``overwrite_g=True`` builds T in G's memory
    and lets the eigensolver destroy it (G is garbage afterwards).
    """
    if overwrite_g:
        T = G
        T -= Lam
    else:
        T = G - Lam
    T /= mu
    T += M
    return _rank_prox(T, 2.0 * alpha / mu, k_hint=k_hint, random_state=random_state,
                      overwrite_a=True)


def _m_step(L, Lam, mu, gamma, *, out=None, work=None):
    """Exact M-step: ``argmin_M gamma ||M||_0 - <Lam, M> + mu/2 ||L - M||^2``, ``diag(M) = 1``.

    ``= _binary_prox(L + Lam / mu, 2 gamma / mu)`` off the diagonal (the
    problem is separable over the entries); the diagonal is fixed to 1 (a
    sample is in its own cluster, as in the reference code). ``out`` receives
    M and ``work`` holds ``L + Lam / mu`` (two n x n float64 buffers, neither
    L nor Lam), so that a fit allocates no n x n temporaries per iteration.
    """
    Q = np.divide(Lam, mu, out=work)
    Q += L
    M = _binary_prox(Q, 2.0 * gamma / mu, out=out)
    np.fill_diagonal(M, 1.0)
    return M


def dgufs_objective(Y, L, S, *, alpha, beta, hsic_scale, rank=None):
    """Objective of DGUFS at (Y, L).

    ``-(1 - beta) tau Tr(Y H0 L H0 Y^T) - beta Tr(S^T L) + alpha rank(L)``,
    ``H0 = I - 1 1^T / n``, ``tau = hsic_scale``, Y (n_features x n_samples)
    the data restricted to the selected features (the other rows of X^T
    zero). The first term is the (linear-kernel) HSIC between the selected
    features and the cluster-label kernel L, the second the agreement of L
    with the sample graph S. ``rank`` defaults to the numerical rank of L.
    """
    Yc = Y - Y.mean(axis=1, keepdims=True)
    hsic = float(np.sum(Yc * (Yc @ L)))
    if rank is None:
        rank = int(np.sum(linalg.eigvalsh(0.5 * (L + L.T)) > 1e-10 * max(1.0, abs(L).max())))
    return -(1.0 - beta) * hsic_scale * hsic - beta * float(np.sum(S * L)) + alpha * rank


class DGUFS(PerCountRankingsMixin, BaseSelector):
    """Dependence Guided Unsupervised Feature Selection (DGUFS).

    Selects a subset of m features and learns a binary, low-rank cluster-label kernel
    L jointly: the dependence (HSIC) between the selected features and L is
    maximised while L agrees with a k-NN sample graph (Guo and Zhu, AAAI 2018 [1]_).
    The result is a subset, which depends on m; ``scores_`` orders the other
    features after it.

    Sparse input is densified; the fit holds six dense n x n matrices and refuses
    more than 5000 samples.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        m, the size of the subset.
    alpha : float, default=1.0
        Weight of rank(L).
    beta : float, default=0.5
        Trade-off between the HSIC term (1 - beta) and the graph term (beta),
        in [0, 1].
    n_neighbors : int, default=5
        Neighbours (besides the point itself) in S.
    mu0 : float, default=1.0
        Initial ADMM penalty.
    max_iter : int, default=300
        Maximum number of iterations.
    tol : float, default=1e-6
        On ``||L - M||_inf``.
    n_iter_no_change : int or None, default=20
        Stop once the subset has been the same for this many consecutive
        iterations; None runs until ``tol`` (or ``max_iter``).
    random_state : int, RandomState or None, default=None
        Seeds ARPACK's start vector (n > 2500).
    {verbose}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Score of each feature, higher is better.
    subset_ : ndarray of shape (`n_features_to_select_`,)
        Sorted indices of the selected subset (the features kept by the final
        Y-step); equals ``np.flatnonzero(get_support())``.
    L_ : ndarray of shape (n_samples, n_samples)
        The final label kernel.
    M_ : ndarray of shape (n_samples, n_samples)
        The final split variable (entries in [0, 1], unit diagonal).
    Y_ : ndarray of shape (n_features, n_samples)
        ``X^T`` on the selected rows, zero elsewhere.
    S_ : ndarray of shape (n_samples, n_samples)
        The 0-1 sample graph.
    hsic_scale_ : float
        tau.
    objective_ : list of float
        Objective value after each iteration (see Notes).
    residual_ : list of float
        ``||L - M||_inf`` per iteration.
    {n_iter_}
    {selector_attributes}

    See Also
    --------
    SOGFS
        Learns a graph with c connected components and a row-sparse projection.
    NDFS
        Spectral clustering and sparse regression, jointly.

    Notes
    -----
    **Objective** (``H0 = I - 1 1^T / n``; Y equals ``X^T`` on exactly m rows and is
    zero elsewhere)::

        min_{Y, L}  -(1 - beta) tau Tr(Y H0 L H0 Y^T) - beta Tr(S^T L) + alpha rank(L)
        s.t. ||Y||_{2,0} = m, ||X^T - Y||_{2,0} = d - m, L = M, M in {0, 1}^(n x n)

    **Iterations**:

    - Y-step (exact): keep the m features of largest HSIC contribution
      ``s_j = x~_j^T L x~_j`` (``x~_j`` the centred feature j); the trace is a sum over
      rows, so this is the exact minimiser.
    - L-step (exact minimiser of the augmented Lagrangian over PSD L): keep the
      eigenvalues of ``T = M + ((1 - beta) tau K + beta S - Lambda) / mu`` above
      ``sqrt(2 alpha / mu)``, ``K = H0 Y^T Y H0``.
    - M-step (exact, entrywise): ``argmin gamma ||M||_0 - <Lambda, M> +
      (mu / 2) ||L - M||^2`` with entries in {0, 1} while ``2 gamma / mu > 1`` and in
      [0, 1] after (the reference's ``solve_l0_binary``), ``diag(M) = 1``.
    - ``Lambda += mu (L - M)``, ``mu = min(rho mu, mu_max)``.

    The fit stops when ``||L - M||_inf < tol`` and the subset did not change, or when
    the subset has not changed for ``n_iter_no_change`` iterations. The second test
    usually ends a default fit, long before the splitting reaches ``tol``; it is a
    heuristic, and a subset can still change after a long unchanged run: pass
    ``n_iter_no_change=None`` to run to ``tol``.

    **Deviation from the reference ADMM.** Jun Guo's code splits ``Z = Y`` and
    linearises the HSIC term as ``Tr(Y C Z^T)``; on a row free in both Y and Z that
    term is unbounded below while the penalty stays zero, so its Z- and Y-steps are
    power iterations and the iterates grow geometrically. The split exists only to
    make the two l2,0 constraints separable; over their intersection the Y-problem
    has the closed form above, so it is solved exactly and only the L/M splitting,
    whose augmented Lagrangian is bounded below, keeps the ADMM form.

    **Interpretations** (the paper's text was not available; the formulas are written
    out in full):

    - ``tau`` (``hsic_scale_``) is fixed once per fit as ``1 / max|K_0|``, ``K_0`` the
      kernel of the first subset, so the HSIC gradient starts on the scale of S. The
      reference rescales ``H Y^T Z H`` to [0, 1] at every iteration, which destroys
      the centring and leaves no fixed objective; the paper's ``H0 / (n - 1)`` would
      make the HSIC term negligible beside ``beta Tr(S L)``.
    - ``mu0=1.0``: the exact L-step scales like ``1 / mu``, and mu0 = 1 puts the
      penalty on the scale of the kernels. The reference's 1e-6 goes with its
      rescaling of the L-step input, which minimises nothing. rho = 1.1,
      mu_max = 1e10 and gamma = 5e-3 are the reference values.
    - S is the 0-1 k-NN graph with self-loops (the reference ``getS``),
      OR-symmetrised; tied distances keep the neighbours of smaller index
      (:func:`ufsel.graph.knn_graph`), so S does not depend on the thread count.
    - Start: ``L = M = S``, ``Lambda = 0`` (the reference starts from 0, where every
      HSIC score is zero and the first subset is arbitrary); the first subset keeps
      the m features of largest ``x~_j^T S x~_j``.
    - ``objective_`` records :func:`dgufs_objective` after each iteration and
      ``residual_`` the residual ``||L - M||_inf``; ADMM is no descent method, so the
      objective need not decrease monotonically.
    - ``scores_`` are the HSIC contributions ``tau s_j`` of the final Y-step, whose m
      largest are exactly ``subset_``; :meth:`fit_rankings` runs one fit per count.

    Each iteration costs ``K`` (O(n^2 m)), the eigenpairs of an n x n matrix above the
    threshold (ARPACK for the few largest when n > 2500 and the rank is below n / 10,
    dense LAPACK otherwise), entrywise n x n updates and the scores (O(n d r)). The
    eigensolve uses every BLAS thread and the products between two eigensolves one.
    The eigensolve dominates, and no smaller problem gives it exactly. The L-step input
    ``T`` holds M and Lambda, which are dense and of nearly full rank: M keeps, clipped
    to [0, 1], every entry of ``Q = L + Lambda / mu`` above a small threshold (a large
    fraction of them), and the updated ``Lambda`` is ``mu (Q - M)``, the rest of Q. So
    no Gram or push-through identity through X reduces ``T``, and a Krylov solve for
    the kept eigenpairs gains little over a dense one, as the threshold lies inside a
    continuum of eigenvalues of ``T``. A fit runs at least ``n_iter_no_change + 1``
    iterations unless the residual reaches ``tol`` first, and :meth:`fit_rankings`
    runs one fit per count (the subset, the kernel and hence every iterate depend on
    m): its cost is the number of counts times at least that many dense n x n
    eigensolves.

    See the fidelity guide,
    `What each default follows <../../guide/fidelity.html#what-each-default-follows>`__.

    References
    ----------
    .. [1] J. Guo, W. Zhu. Dependence guided unsupervised feature selection.
       AAAI 2018, pp. 2232-2239.

    Examples
    --------
    >>> from ufsel import DGUFS
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, y, informative = make_planted_clusters(random_state=0)
    >>> DGUFS(n_features_to_select=5).fit(X).transform(X).shape
    (200, 5)
    """

    _parameter_constraints = {
        **BaseSelector._parameter_constraints,
        "alpha": [Interval(Real, 0, None, closed="left")],
        "beta": [Interval(Real, 0, 1, closed="both")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "mu0": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_iter_no_change": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }
    _RHO, _MU_MAX, _GAMMA = 1.1, 1e10, 5e-3

    def __init__(self, n_features_to_select=None, *, alpha=1.0, beta=0.5, n_neighbors=5,
                 mu0=1.0, max_iter=300, tol=1e-6, n_iter_no_change=20, random_state=None,
                 verbose=0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.alpha = alpha
        self.beta = beta
        self.n_neighbors = n_neighbors
        self.mu0 = mu0
        self.max_iter = max_iter
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.random_state = random_state
        self.verbose = verbose

    def _memory_terms(self, shape):
        return {**super()._memory_terms(shape), **dense_copy_term(shape),
                **knn_terms(densified(shape), self.n_neighbors, weight=None), **square_term(shape.n, 8, "dense graph")}

    def _problem_size(self, X):
        """The thread policy sees the n x n matrices of the fit (its eigensolves)."""
        return X.shape[0] ** 2

    def _fit(self, X):
        name = type(self).__name__
        n, d = X.shape
        if n > MAX_SAMPLES:
            raise ValueError(
                f"{name} works with dense {n} x {n} matrices (the label kernel, its split "
                f"variable and multiplier); it is limited to n_samples <= {MAX_SAMPLES}, got "
                f"{n}. Subsample the data or use a graph-sparse method (SOGFS, EUFS)."
            )
        rng = self._start_fit(X)
        m = self.n_features_to_select_
        Xd = np.asarray(densify(X, name), dtype=np.float64)
        Xc = Xd - Xd.mean(axis=0)
        S = self._knn_affinity(X, weight="binary", symmetrize_mode="max").toarray()
        np.fill_diagonal(S, 1.0)
        S_rows, S_cols = np.nonzero(S)
        S_vals = S[S_rows, S_cols]
        a, b = self.alpha, self.beta
        # n x n buffers reused by every iteration: the kernel / L-step input G
        # (destroyed by the eigensolver), L, M, the M-step's work array (then L - M)
        # and the multiplier. A fresh n x n temporary costs its page faults every time.
        L, M = S.copy(), S.copy()
        G, work = np.empty((n, n)), np.empty((n, n))
        Lam = np.zeros((n, n))
        mu = float(self.mu0)
        factors = None
        tau = None
        prev_keep, n_same = None, 0
        track = ObjectiveTracker(name, self.max_iter, self.tol, "alpha or beta",
                                 verbose=self.verbose)
        self.objective_, self.residual_ = track.values, []
        stop = np.inf
        converged = False
        blas = ThreadpoolController()
        for _ in range(self.max_iter):
            with _one_blas_thread(blas):
                scores, keep = _y_step(Xc, L, m, factors)
                Yc = Xc[:, keep]
                np.dot(Yc, Yc.T, out=G)  # K = H0 Y^T Y H0 (Y's rows are centred)
            if tau is None:
                top = float(np.abs(G).max())
                tau = 1.0 / top if top > 0 else 1.0
            G *= (1.0 - b) * tau
            G[S_rows, S_cols] += b * S_vals  # + beta S (sparse)
            w, V = _l_step(M, G, Lam, mu, a, k_hint=factors[1].size if factors else None,
                           random_state=rng, overwrite_g=True)
            factors = (V, w)
            with _one_blas_thread(blas):
                np.dot(V * w, V.T, out=L)
                P = Yc.T @ V
                obj = (-(1.0 - b) * tau * float(np.sum((P * P) @ w))
                       - b * float(S_vals @ L[S_rows, S_cols]) + a * w.size)
            M = _m_step(L, Lam, mu, self._GAMMA, out=M, work=work)
            R = np.subtract(L, M, out=work)
            stop = max(float(R.max()), -float(R.min()))
            track.append(obj)
            self.residual_.append(stop)
            same = prev_keep is not None and np.array_equal(keep, prev_keep)
            n_same = n_same + 1 if same else 0
            prev_keep = keep
            patience = self.n_iter_no_change
            if (stop < self.tol and same) or (patience is not None and n_same >= patience):
                converged = True
                break
            R *= mu
            Lam += R
            mu = min(self._RHO * mu, self._MU_MAX)
        if not converged:
            warnings.warn(
                f"{name} did not converge within max_iter={self.max_iter} iterations "
                f"(constraint residual ||L - M||_inf = {stop:.3g} > tol={self.tol:g}, and the "
                f"subset not yet stable for n_iter_no_change={self.n_iter_no_change} iterations). "
                "Increase max_iter.",
                ConvergenceWarning,
                stacklevel=3,
            )
        # The subset and scores of the last Y-step, against the final L.
        scores, keep = _y_step(Xc, L, m, factors)
        self.n_iter_ = track.n_iter
        self.hsic_scale_ = tau
        self.L_, self.M_, self.S_ = L, M, S
        self.subset_ = keep
        Y = np.zeros((d, n))
        Y[keep] = Xd.T[keep]
        self.Y_ = Y
        return tau * scores
