"""Numerics that do not depend on the machine: exact eigensteps, checked iterative ones,
rankings stable under round-off-sized perturbations and feature permutations.

Run these with several BLAS kernels and thread counts, e.g.
``OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1`` and ``OPENBLAS_CORETYPE=Sandybridge``.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import linalg, sparse
from sklearn.exceptions import ConvergenceWarning

from ufsel import EVSC, JELSR, MCFS, NDFS, RSFS, SOGFS, UDFS
from ufsel.datasets import make_planted_clusters
from ufsel.graph import canonical_embedding
from ufsel.linalg import _warm_eigh, eigen_residuals, smallest_eigvecs, warm_smallest_eigvecs
from ufsel.selectors.filters._spec import spec_scores

from ._common import NAMES, PERMUTATION_UP_TO_TIES, fit_checked, make


def _quiet(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X)


def _same_subspace(U, V, atol=1e-6):
    """Largest principal-angle sine between span(U) and span(V) is below atol.

    1e-6: the iterative solvers are accepted at residual ``WARM_RTOL ||A||_inf``
    (1e-8 times about 30 for the matrices below), and by Davis-Kahan the sine is at
    most residual / gap, with gap about 1 here: a few 1e-7.
    """
    Qu, _ = np.linalg.qr(U)
    Qv, _ = np.linalg.qr(V)
    assert np.linalg.norm(Qv - Qu @ (Qu.T @ Qv), 2) < atol


def _spd_with_gap(n=60, c=3, seed=0):
    rng = np.random.RandomState(seed)
    Q, _ = np.linalg.qr(rng.standard_normal((n, n)))
    w = np.concatenate([[1e-3, 2e-3, 3e-3], np.linspace(1.0, 5.0, n - c)])
    return (Q * w) @ Q.T, Q[:, :c]


# ------------------------------------------------------------- SPEC phi3
def _three_component_graph():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(12, 4) + 30 * np.eye(4)[i] for i in range(3)])
    X[:, 3] = rng.randn(36)
    from ufsel.graph import knn_affinity
    S = knn_affinity(X, 4, weight="heat")
    from scipy.sparse import csgraph
    assert csgraph.connected_components(S)[0] == 3
    return X, S


def _phi3_brute(X, S, slots):
    """phi3 from a full eigendecomposition with the exact xi_1 removed (power 1)."""
    deg = np.asarray(S.sum(1)).ravel()
    dh = np.sqrt(deg)
    Lhat = np.eye(len(deg)) - S.toarray() / np.outer(dh, dh)
    xi1 = dh / np.linalg.norm(dh)
    P = np.eye(len(deg)) - np.outer(xi1, xi1)
    lam, V = linalg.eigh(P @ Lhat @ P + 3.0 * np.outer(xi1, xi1))
    Fh = dh[:, None] * X
    Fh /= np.linalg.norm(Fh, axis=0)
    alpha = V.T @ Fh
    weight = np.zeros(len(lam))
    zero = np.flatnonzero(lam < 1e-8)  # the repeated eigenvalue 0 (2 directions left)
    if slots <= zero.size:
        weight[zero] = slots / zero.size
    else:
        weight[: slots] = 1.0
    return ((weight * (2.0 - np.clip(lam, 0, 2)))[:, None] * alpha**2).sum(0)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_spec_phi3_disconnected_graph_projects_exact_trivial_vector(k):
    """3 components: eigenvalue 0 of L^ has multiplicity 3. k = 3 uses exactly the two
    non-trivial null directions; k = 2 has one slot for two tied directions (shared evenly);
    k = 5 uses both and two more."""
    X, S = _three_component_graph()
    got = spec_scores(X, S, scoring="phi3", n_clusters=k)
    np.testing.assert_allclose(got, _phi3_brute(X, S, k - 1), rtol=1e-8, atol=1e-12)


def test_spec_phi3_does_not_depend_on_solver_basis(monkeypatch):
    """Rotating the basis the eigensolver returns inside the repeated eigenspace changes
    nothing (the old code dropped an arbitrary vector of it)."""
    X, S = _three_component_graph()
    ref = spec_scores(X, S, scoring="phi3", n_clusters=3)
    import ufsel.selectors.filters._spec as spec_mod
    orig = spec_mod.partial_eigh
    rng = np.random.RandomState(1)

    def rotated(A, k, **kw):
        w, V = orig(A, k, **kw)
        tied = np.flatnonzero(np.abs(w - w.max()) < 1e-8)
        G, _ = np.linalg.qr(rng.standard_normal((tied.size, tied.size)))
        V = V.copy()
        V[:, tied] = V[:, tied] @ G
        return w, V

    monkeypatch.setattr(spec_mod, "partial_eigh", rotated)
    np.testing.assert_allclose(spec_scores(X, S, scoring="phi3", n_clusters=3), ref,
                               rtol=1e-10, atol=1e-14)


# -------------------------------------------------- checked eigensolvers
def test_iterative_eigensolvers_equal_dense_on_tiny_problem():
    A, _ = _spd_with_gap()
    dense = smallest_eigvecs(A, 3, method="dense")
    for method in ("arpack", "lobpcg"):
        _same_subspace(smallest_eigvecs(A, 3, method=method, random_state=0), dense)
    start = dense + 1e-2 * np.random.RandomState(2).standard_normal(dense.shape)
    _same_subspace(warm_smallest_eigvecs(A, start), dense)
    _, _, res = eigen_residuals(A, warm_smallest_eigvecs(A, start))
    assert res.max() <= _warm_eigh.WARM_RTOL * np.abs(A).sum(1).max()


def test_warm_solver_falls_back_when_lobpcg_fails(monkeypatch):
    """LOBPCG made to stall (it returns its start): the residual check catches it and the
    exact solve replaces it."""
    A, _ = _spd_with_gap()
    exact = smallest_eigvecs(A, 3, method="dense")
    start = np.random.RandomState(3).standard_normal((A.shape[0], 3))

    def stalled(op, X, **kw):
        return np.zeros(X.shape[1]), X

    monkeypatch.setattr(_warm_eigh.splinalg, "lobpcg", stalled)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the fallback succeeds: no warning
        Y = warm_smallest_eigvecs(A, start)
    _same_subspace(Y, exact)


def test_warm_solver_warns_when_even_the_fallback_fails(monkeypatch):
    A, _ = _spd_with_gap()
    start = np.random.RandomState(3).standard_normal((A.shape[0], 3))
    monkeypatch.setattr(_warm_eigh.splinalg, "lobpcg", lambda op, X, **kw: (np.zeros(3), X))
    monkeypatch.setattr(_warm_eigh, "_exact", lambda A, c, rs, Y0, dense=False: Y0)
    with pytest.warns(ConvergenceWarning, match="did not reach residual"):
        warm_smallest_eigvecs(A, start, owner="TEST")


def test_warm_solver_never_increases_the_trace():
    A, _ = _spd_with_gap()
    start = np.random.RandomState(4).standard_normal((A.shape[0], 3))
    Q, _ = np.linalg.qr(start)
    Y = warm_smallest_eigvecs(A, start, maxiter=1)
    assert np.sum(Y * (A @ Y)) <= np.sum(Q * (A @ Q)) + 1e-12


def test_smallest_eigvecs_rejects_unknown_method():
    with pytest.raises(ValueError, match="method='eig' not understood"):
        smallest_eigvecs(np.eye(4), 1, method="eig")


# ------------------------------------------------------------ UDFS / JELSR
@pytest.fixture(scope="module")
def planted():
    return make_planted_clusters(120, 5, 25, 4, random_state=0)


@pytest.mark.parametrize("solver", ["arpack", "lobpcg"])
def test_udfs_iterative_eigensolver_equals_dense(planted, solver):
    X = planted[0]
    kw = dict(n_clusters=4, gamma=0.1, max_iter=15, tol=0, random_state=0)
    dense = _quiet(UDFS(5, eigen_solver="dense", **kw), X)
    it = _quiet(UDFS(5, eigen_solver=solver, **kw), X)
    # rtol 1e-5: LOBPCG is accepted at residual 1e-8 ||P||_inf (||P|| ~ 1e2 here), so W's
    # subspace is off by up to ~1e-6 / gap, and the l2,1 term of the objective (not a
    # Rayleigh quotient) is first-order in that error.
    np.testing.assert_allclose(it.objective_, dense.objective_, rtol=1e-5)
    np.testing.assert_array_equal(it.ranking_, dense.ranking_)
    obj = dense.objective_
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))  # monotone


@pytest.fixture(scope="module")
def wide():
    """More features than samples (60 x 150): M = X^T L X has a null space of dimension
    at least 150 - 59, far more than c = 4."""
    return make_planted_clusters(60, 6, 144, 4, random_state=1)[0]


@pytest.mark.parametrize("make_selector", [
    lambda: UDFS(10, n_clusters=4, max_iter=8, tol=0, random_state=0),
    lambda: UDFS(10, n_clusters=4, max_iter=8, tol=0, eigen_solver="dense", random_state=0),
    lambda: UDFS(10, n_clusters=4, max_iter=8, tol=0, eigen_solver="lobpcg", random_state=0),
    lambda: SOGFS(4, n_clusters=4, max_iter=8, random_state=0),
], ids=["udfs-woodbury", "udfs-dense", "udfs-lobpcg", "sogfs"])
def test_wide_data_eigensteps_are_determined_by_the_data(wide, make_selector):
    """With d > n the first eigenstep's c smallest eigenvalues of ``X^T L X + gamma I``
    are tied with d - n + 1 others; UDFS and SOGFS average over the tied eigenspace, so a
    1e-12 relative perturbation and a column permutation change nothing beyond
    round-off. (Taking LAPACK's c vectors, as before, moved some scores by as much as
    the largest score.) SOGFS's scores beyond its m = 4 columns are at round-off level
    (its l2,1 term makes W a coordinate selection), hence 4 features."""
    a = _quiet(make_selector(), wide)
    u = np.random.default_rng(0).uniform(-1, 1, wide.shape)
    b = _quiet(make_selector(), wide * (1 + 1e-12 * u))
    perm = np.random.default_rng(1).permutation(wide.shape[1])
    c = _quiet(make_selector(), wide[:, perm])
    scale = a.scores_.max()
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=0, atol=1e-8 * scale)
    np.testing.assert_allclose(c.scores_, a.scores_[perm], rtol=0, atol=1e-8 * scale)
    assert set(np.flatnonzero(c.get_support())) == set(np.flatnonzero(a.get_support()[perm]))
    assert a.tied_ is False  # only the first step was tied
    if isinstance(a, UDFS):
        obj = a.objective_
        assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))  # monotone from the average
    if isinstance(a, UDFS) and a.eigen_solver == "auto":
        # the Woodbury / ARPACK steps of "auto" and the dense LAPACK steps agree
        dense = _quiet(UDFS(10, n_clusters=4, max_iter=8, tol=0, eigen_solver="dense"), wide)
        np.testing.assert_allclose(a.objective_, dense.objective_, rtol=1e-9)
        np.testing.assert_allclose(a.scores_, dense.scores_, rtol=0, atol=1e-7 * scale)


def test_udfs_first_wide_step_is_the_averaged_projector(wide):
    """One iteration on wide data: scores_ are the diagonal of the average over the tied
    eigenspace of M + gamma I, computed here by brute force from its full decomposition,
    and objective_ is ``Tr(M Pi) + gamma sum_j sqrt(Pi_jj)`` at that average."""
    from ufsel.selectors.sparse_regression._udfs import udfs_local_scatter
    est = UDFS(10, n_clusters=4, gamma=0.5, max_iter=1).fit(wide)
    L = udfs_local_scatter(wide, 5, reg=1000.0)
    M = wide.T @ (L @ wide)
    M = 0.5 * (M + M.T)
    w, V = linalg.eigh(M + 0.5 * np.eye(M.shape[0]))
    tied = np.abs(w - w[3]) <= 1e-9 * np.abs(w).max()
    below = w < w[3] - 1e-9 * np.abs(w).max()
    frac = (4 - below.sum()) / tied.sum()
    Pi = V[:, below] @ V[:, below].T + frac * V[:, tied] @ V[:, tied].T
    np.testing.assert_allclose(est.scores_, np.diag(Pi), atol=1e-10)
    expected = np.trace(M @ Pi) + 0.5 * np.sum(np.sqrt(np.diag(Pi) + np.finfo(float).eps))
    assert est.objective_[0] == pytest.approx(expected, rel=1e-10)
    assert est.tied_ and est.W_.shape == (150, 4)


@pytest.mark.parametrize("components", [1, 3])
def test_sogfs_first_wide_step_on_the_row_space_equals_the_full_decomposition(wide, components):
    """SOGFS's first W-step for d > n on X's row space (an r x r problem) against the
    d x d route: the same diag(Pi) and trace, the same projected Gram ``X Pi X^T`` from
    the factor (the complement's part adds nothing on X's rows), and a factor with one
    column per extra component of the graph (the null space of X^T L X on the row space)."""
    from scipy import sparse

    from ufsel.graph import graph_laplacian
    from ufsel.linalg import center_unit_norm
    from ufsel.linalg._ky_fan import RowSpaceQuadratic
    from ufsel.selectors.adaptive_graph._sogfs import _w_step

    X = center_unit_norm(wide)
    n = X.shape[0]
    # a chain graph split into `components` pieces
    rows = np.array([i for i in range(n - 1) if (i + 1) % (n // components)])
    A = sparse.coo_matrix((np.ones(rows.size), (rows, rows + 1)), shape=(n, n))
    L = graph_laplacian((A + A.T).tocsr())
    rows = RowSpaceQuadratic(X, scale=2.0)
    low = rows.first_step(rows.reduced(L), 200.0, 4)
    full = _w_step(np.asarray(X.T @ (L @ X)), None, 200.0, 4)
    assert low.tied and full.tied
    np.testing.assert_allclose(low.weights, full.weights, atol=1e-12)
    assert low.trace == pytest.approx(full.trace, rel=1e-12)
    Zl, Zf = X @ low.factor, X @ full.factor
    np.testing.assert_allclose(Zl @ Zl.T, Zf @ Zf.T, atol=1e-10)
    assert low.factor.shape[1] == components - 1
    assert 0 < low.complement < 1


def test_sogfs_woodbury_steps_equal_the_dense_steps(wide, monkeypatch):
    """SOGFS with d > n solves its later W-steps by ARPACK through the Woodbury identity;
    with those steps replaced by the dense solve it gives the same objectives, the same
    scores and the same number of iterations."""
    from ufsel.linalg._ky_fan import RowSpaceQuadratic

    calls = []
    real = RowSpaceQuadratic.step

    def counted(self, *a, **k):
        out = real(self, *a, **k)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(RowSpaceQuadratic, "step", counted)
    fast = SOGFS(10, n_clusters=4, max_iter=6, adapt_lambda=False, tol=0,
                 random_state=0).fit(wide)
    assert len(calls) == 6 and all(calls)  # every later step took the Woodbury route
    monkeypatch.setattr(RowSpaceQuadratic, "step", lambda self, *a, **k: None)
    dense = SOGFS(10, n_clusters=4, max_iter=6, adapt_lambda=False, tol=0,
                  random_state=0).fit(wide)
    assert fast.n_iter_ == dense.n_iter_
    np.testing.assert_allclose(fast.objective_, dense.objective_, rtol=1e-9)
    np.testing.assert_allclose(fast.scores_, dense.scores_, atol=1e-9 * dense.scores_.max())


def test_sogfs_wide_data_beyond_the_gram_limit(wide, monkeypatch, ufsel_config):
    """With d > n every SOGFS step runs on X's row space or through the Woodbury
    identity, so a d x d matrix above the size limit is never formed; a dense step
    (forced here) refuses it with the size error instead of exhausting memory."""
    from ufsel.linalg._ky_fan import RowSpaceQuadratic

    kw = dict(n_clusters=4, max_iter=5, adapt_lambda=False, tol=0, random_state=0)
    free = SOGFS(10, **kw).fit(wide)
    ufsel_config(max_gram_bytes=100 * 100 * 8)
    capped = SOGFS(10, **kw).fit(wide)
    np.testing.assert_array_equal(capped.scores_, free.scores_)
    monkeypatch.setattr(RowSpaceQuadratic, "step", lambda self, *a, **k: None)
    with pytest.raises(ValueError, match="SOGFS needs a 150 x 150 matrix"):
        SOGFS(10, **kw).fit(wide)


@pytest.mark.parametrize("solver", ["arpack", "lobpcg"])
def test_jelsr_keeps_its_ranking_with_the_exact_default(planted, solver):
    """The default (exact dense) Y-step and a checked iterative one give the same ranking."""
    X = planted[0]
    kw = dict(n_clusters=4, max_iter=10, tol=0, random_state=0)
    auto = _quiet(JELSR(5, **kw), X)
    it = _quiet(JELSR(5, eigen_solver=solver, **kw), X)
    np.testing.assert_allclose(it.objective_, auto.objective_, rtol=1e-6)
    np.testing.assert_array_equal(it.ranking_, auto.ranking_)
    obj = auto.objective_
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))


def test_jelsr_dense_matrix_matches_operator(planted):
    """The n x n Y-step matrix formed from the Cholesky factor (primal and push-through)."""
    from ufsel.linalg import RidgeFactor
    from ufsel.selectors.sparse_regression._jelsr import _dense_hat_complement
    rng = np.random.RandomState(0)
    for n, d in ((30, 8), (8, 30)):
        X = rng.randn(n, d)
        mu = X.mean(0)
        g = rng.uniform(0.5, 2.0, d)
        for Xin, mean in ((X - mu, None), (sparse.csr_matrix(X), mu)):
            fac = RidgeFactor(Xin, g, mean=mean)
            H = _dense_hat_complement(fac, n)
            Xc = X - mu
            ref = np.eye(n) - Xc @ np.linalg.solve(Xc.T @ Xc + np.diag(g), Xc.T)
            np.testing.assert_allclose(H, ref, atol=1e-10)


# ------------------------------------------------------------------- RSFS
def test_rsfs_canonical_embedding_is_rotation_invariant():
    rng = np.random.RandomState(0)
    Y = rng.standard_normal((40, 3))
    G, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    np.testing.assert_array_equal(canonical_embedding(Y), canonical_embedding(Y @ G))


def test_rsfs_on_disconnected_graph_is_permutation_equivariant():
    """More components than clusters: k-means ties between partitions of equal inertia
    used to be broken by round-off."""
    X, _ = _three_component_graph()
    X = X * np.array([1e3, 1.0, 1e-3, 10.0])
    perm = np.array([2, 0, 3, 1])
    kw = dict(n_neighbors=3, n_clusters=2, max_iter=5, tol=0.1, random_state=0)
    a = _quiet(RSFS(2, **kw), X)
    b = _quiet(RSFS(2, **kw), X[:, perm])
    np.testing.assert_allclose(b.scores_, a.scores_[perm], rtol=1e-6)


def _eight_blobs():
    rng = np.random.RandomState(2)
    centres = 40.0 * rng.standard_normal((8, 12))
    return np.repeat(centres, 10, axis=0) + rng.standard_normal((80, 12)) * rng.uniform(0.5, 2, 12)


@pytest.mark.parametrize("cls, extra", [(RSFS, {"max_iter": 3}), (NDFS, {"max_iter": 3}),
                                        (MCFS, {}), (EVSC, {})])
def test_more_components_than_requested_eigenvectors_is_determined_by_the_graph(cls, extra):
    """Eight separated blobs, a 5-NN graph with eight components and n_clusters = 3: the
    eigenvalue 0 has seven non-trivial solutions, and an eigensolver's choice of some of
    them followed round-off (on COIL20 a 1e-12 perturbation of X changed 47 of RSFS's top
    50 features, 27 of NDFS's and all 50 of EVSC's). RSFS, NDFS and MCFS use the whole
    eigenspace, and EVSC sets the sensitivities of its eigenvalue 0 to their exact 0, so the
    result follows the graph only."""
    X = _eight_blobs()
    from scipy.sparse.csgraph import connected_components

    from ufsel.graph import knn_affinity

    assert connected_components(knn_affinity(X, 5, weight="heat"))[0] == 8
    kw = dict(n_neighbors=5, n_clusters=3, random_state=0, **extra)
    a = _quiet(cls(4, **kw), X)
    for seed in range(3):
        Xp = X * (1.0 + 1e-12 * np.random.RandomState(seed).uniform(-1, 1, X.shape))
        b = _quiet(cls(4, **kw), Xp)
        np.testing.assert_allclose(b.scores_, a.scores_, rtol=1e-6,
                                   atol=1e-9 * np.abs(a.scores_).max())
    if cls is MCFS:  # the whole eigenspace: one column per component beyond the first
        assert a.embedding_.shape[1] == 7
    if cls is EVSC:  # both eigenvalues used are the exact 0 of the extra components: the
        # components are the clusters, and the features score their share between them
        assert np.all(a.eigenvalues_ == 0) and a.component_scores_
        assert np.all((a.scores_ >= 0) & (a.scores_ <= 1)) and np.ptp(a.scores_) > 0
        with pytest.warns(UserWarning, match="8 connected components"):
            cls(4, **kw).fit(X)



# ---------------------------------------------------- every selector
def _well_conditioned(n=45, d=6, seed=0):
    """Three separated blobs in two features, noise features of distinct scales."""
    rng = np.random.RandomState(seed)
    labels = np.arange(n) % 3
    X = rng.standard_normal((n, d)) * np.linspace(0.6, 1.4, d)
    X[:, :2] += np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])[labels]
    return X


@pytest.mark.parametrize("name", NAMES)
def test_ranking_stable_under_round_off_and_permutation(name):
    """A 1e-12 relative perturbation of X keeps the ranking; permuting the columns permutes
    the scores (rtol 1e-6, or only their sorted values for documented ties)."""
    X = _well_conditioned()
    d = X.shape[1]
    k = 3
    a = fit_checked(make(name, n_features_to_select=k), X)
    Xp = X * (1.0 + 1e-12 * np.random.RandomState(5).uniform(-1, 1, X.shape))
    b = fit_checked(make(name, n_features_to_select=k), Xp)
    s = np.sort(a.scores_)[::-1]
    scale = max(1.0, float(np.abs(s).max()))
    gaps = np.abs(np.diff(s)) > 1e-6 * scale
    if gaps.all():  # distinct scores: the whole ranking is determined
        np.testing.assert_array_equal(b.ranking_, a.ranking_)
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=1e-6, atol=1e-9 * scale)
    perm = np.random.RandomState(6).permutation(d)
    c = fit_checked(make(name, n_features_to_select=k), X[:, perm])
    if name in PERMUTATION_UP_TO_TIES:
        np.testing.assert_allclose(np.sort(c.scores_), np.sort(a.scores_), rtol=1e-6,
                                   atol=1e-9 * scale)
    else:
        np.testing.assert_allclose(c.scores_, a.scores_[perm], rtol=1e-6, atol=1e-9 * scale)


# ------------------------------------------------- UDFS against the reference
_DATA = os.environ.get("UFSEL_DATA")


@pytest.mark.slow
@pytest.mark.skipif(not _DATA or not Path(_DATA, "coil20.mat").is_file(),
                    reason="benchmark data not available: set UFSEL_DATA")
def test_udfs_coil20_reaches_reference_objective():
    """UDFS on COIL20 with FSASL's setting (k = 5, c = 20 classes, gamma = 1, lambda = 1000,
    20 fixed iterations) reaches the objective of the authors' code run in Octave,
    20.0032 (the earlier warm LOBPCG stalled at 20.0066). About 10 s."""
    from ufsel.datasets import load_dataset
    X = load_dataset("coil20").data
    est = UDFS(50, n_clusters=20, n_neighbors=5, gamma=1.0, reg=1000.0, max_iter=20,
               tol=0).fit(X)
    assert abs(est.objective_[-1] - 20.0032) < 1e-4
    assert np.all(np.diff(est.objective_) <= 1e-9 * est.objective_[:-1])


def test_partial_eigh_lobpcg_warns_when_not_converged():
    """A user-chosen LOBPCG that stops early is reported, not returned silently."""
    from ufsel.linalg import partial_eigh
    A, _ = _spd_with_gap(n=200)
    with pytest.warns(ConvergenceWarning, match="LOBPCG did not converge"):
        partial_eigh(A, 3, method="lobpcg", maxiter=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        partial_eigh(A, 3, method="lobpcg", maxiter=1, random_state=0, check_residuals=False)
        w, V = partial_eigh(A, 3, method="lobpcg", maxiter=500, tol=1e-9, random_state=0)
    np.testing.assert_allclose(w, [1e-3, 2e-3, 3e-3], atol=1e-8)
