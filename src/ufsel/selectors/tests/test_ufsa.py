"""UFSA: objective (7) decreases, constraints hold, solution not degenerate, planted features."""

import warnings

import numpy as np
import pytest
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning

from ufsel import UFSA
from ufsel.datasets import make_planted_clusters
from ufsel.graph import adaptive_neighbors
from ufsel.selectors.adaptive_graph._ufsa import ufsa_objective
from ufsel.selectors.adaptive_graph._ufsa_wstep import WStepQuadratic, _sym_laplacian


@pytest.fixture(scope="module")
def planted():
    return make_planted_clusters(200, n_informative=5, n_noise=45, n_clusters=4,
                                 random_state=0)


@pytest.fixture(scope="module")
def fitted(planted):
    X, _, _ = planted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return UFSA(5, n_clusters=4, n_neighbors=10, max_iter=60, tol=1e-7,
                    lambda_update="fixed", random_state=0).fit(X)


@pytest.fixture(scope="module")
def fitted_adaptive(planted):
    X, _, _ = planted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return UFSA(5, n_clusters=4, n_neighbors=10, max_iter=60, tol=1e-7,
                    random_state=0).fit(X)


def test_objective_decreases(fitted):
    obj = fitted.objective_
    assert obj.size == fitted.n_iter_ >= 10
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1])), np.diff(obj).max()
    assert obj[-1] < 0.95 * obj[0]


@pytest.mark.parametrize("mode", ["fixed", "adaptive"])
def test_objective_value_matches_final_state(planted, fitted, fitted_adaptive, mode):
    X, _, _ = planted
    fitted = fitted if mode == "fixed" else fitted_adaptive
    assert fitted.lambda_update == mode
    assert not fitted.constant_features_.any()
    Xw = X / fitted.feature_scale_  # standardize=True: unit-variance features
    np.testing.assert_allclose(Xw.std(axis=0), 1.0)
    val = ufsa_objective(Xw, fitted.W_, fitted.intercept_, fitted.labels_matrix_,
                         fitted.similarity_, fitted.lambdas_, 1.0, 1.0, fitted.eps)
    assert val == pytest.approx(fitted.objective_[-1], rel=1e-12)


def test_adaptive_s_step_is_cans_closed_form_on_the_final_projection(planted, fitted,
                                                                     fitted_adaptive):
    # The default re-sets lambda_i in every S-step: each row of the final S has exactly
    # k non-zeros, s_ij = (q_(k+1) - q_ij) / (k q_(k+1) - sum_(l<=k) q_(l)) on the k
    # nearest projected points (brute force here), and lambda_i = (k q_(k+1) - sum) / 2.
    X, _, _ = planted
    sel, k = fitted_adaptive, 10
    Z = (X / sel.feature_scale_) @ sel.W_
    Q = ((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1)
    np.fill_diagonal(Q, np.inf)
    order = np.argsort(Q, axis=1, kind="stable")[:, :k + 1]
    q = np.take_along_axis(Q, order, axis=1)
    denom = k * q[:, k] - q[:, :k].sum(axis=1)
    expected = np.zeros_like(Q)
    np.put_along_axis(expected, order[:, :k], (q[:, k:k + 1] - q[:, :k]) / denom[:, None], axis=1)
    S = sel.similarity_
    np.testing.assert_array_equal(np.diff(S.indptr), k)
    np.testing.assert_allclose(S.toarray(), expected, atol=1e-10)
    np.testing.assert_allclose(sel.lambdas_, denom / 2.0, rtol=1e-9)
    # the fixed reading's supports follow the projection instead (not k everywhere)
    assert np.any(np.diff(fitted.similarity_.indptr) != k)


def test_constraints_hold_and_solution_not_degenerate(fitted):
    W, F, S = fitted.W_, fitted.labels_matrix_, fitted.similarity_
    np.testing.assert_allclose(W.T @ W, np.eye(W.shape[1]), atol=1e-8)
    assert F.min() >= 0 and F.max() <= 1
    assert np.all(F.std(axis=0) > 0.05)  # F is not constant
    np.testing.assert_allclose(np.asarray(S.sum(axis=1)).ravel(), 1.0, atol=1e-12)
    assert S.min() >= 0 and S.diagonal().max() == 0
    assert S.nnz <= 4 * 10 * S.shape[0]  # sparse: a few neighbours per row
    s = fitted.scores_
    assert s.std() > 0.1 * s.mean()  # scores are not all equal
    assert np.linalg.norm(W) == pytest.approx(2.0)  # ||W||_F^2 = c: W did not shrink


def test_planted_informative_features_found(planted, fitted):
    _, _, informative = planted
    top = np.argsort(fitted.ranking_)[:8]
    assert len(set(top) & set(informative)) >= 4
    assert fitted.ranking_[informative].mean() < 10  # random would be ~25


def test_objective_matches_double_sum():
    rng = np.random.default_rng(0)
    n, d, c = 12, 5, 2
    X = rng.standard_normal((n, d))
    W = np.linalg.qr(rng.standard_normal((d, c)))[0]
    b = rng.standard_normal(c)
    F = rng.uniform(size=(n, c))
    Sd = rng.uniform(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.4)
    np.fill_diagonal(Sd, 0)
    lam = rng.uniform(0.5, 2, n)
    graph = sum(Sd[i, j] * np.sum((W.T @ (X[i] - X[j])) ** 2) + lam[i] * Sd[i, j] ** 2
                for i in range(n) for j in range(n))
    reg = sum(np.sum((W.T @ X[i] + b - F[i]) ** 2) for i in range(n))
    l21 = np.sum(np.sqrt(np.sum(W**2, axis=1)))
    expected = graph + 0.7 * reg + 0.3 * l21
    got = ufsa_objective(X, W, b, F, sparse.csr_matrix(Sd), lam, 0.7, 0.3, eps=0.0)
    assert got == pytest.approx(expected, rel=1e-12)
    # The graph term is 2 Tr(W^T X^T L_s X W) with L_s = D_s - (S + S^T)/2.
    L = _sym_laplacian(sparse.csr_matrix(Sd)).toarray()
    g = sum(Sd[i, j] * np.sum((W.T @ (X[i] - X[j])) ** 2) for i in range(n) for j in range(n))
    assert 2 * np.trace(W.T @ X.T @ L @ X @ W) == pytest.approx(g, rel=1e-12)


def test_operator_path_matches_dense():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 120))
    S, _ = adaptive_neighbors(X, 5)
    L = _sym_laplacian(S)
    g = rng.uniform(0.1, 10.0, 120)
    V = rng.standard_normal((120, 3))
    dense, no_diag = WStepQuadratic(X, 0.7, dense=True).matrix(S, g, 0.3)
    op, diag_op = WStepQuadratic(X, 0.7, dense=False).matrix(S, g, 0.3)
    np.testing.assert_allclose(op.matmat(V), dense @ V, rtol=1e-10, atol=1e-10)
    # The dense A, formed through K = D_s - S, is the closed form of the W-step's matrix.
    Ld = L.toarray()
    H = np.eye(40) - 1.0 / 40
    expected = 2 * X.T @ Ld @ X + 0.7 * X.T @ H @ X + 0.3 * np.diag(g)
    np.testing.assert_allclose(dense, expected, rtol=1e-10, atol=1e-10 * np.abs(expected).max())
    np.testing.assert_array_equal(dense, dense.T)
    # The operator path carries A's diagonal (its trust-region preconditioner).
    assert no_diag is None
    np.testing.assert_allclose(diag_op, np.diag(expected), rtol=1e-10)
    kw = dict(n_clusters=3, n_neighbors=5, max_iter=15, lambda_update="fixed", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = UFSA(10, solver="dense", **kw).fit(X)
        b = UFSA(10, solver="operator", **kw).fit(X)
    assert a.solver_ == "dense" and b.solver_ == "operator"
    for sel in (a, b):
        assert np.all(np.diff(sel.objective_) <= 1e-9 * np.abs(sel.objective_[:-1]))
        np.testing.assert_allclose(sel.W_.T @ sel.W_, np.eye(3), atol=1e-8)
    # Same problem, same start: both W-steps are solved to their tolerance (in A's
    # eigenbasis or through products), so the objectives agree to that tolerance.
    assert a.w_step_converged_.all() and b.w_step_converged_.all()
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-8)


@pytest.mark.parametrize("layout", ["C", "F", "sparse"])
def test_pushthrough_product_and_inverse_equal_the_dense_matrix(layout):
    # d > n: A = G + X^T N X applied through X, and A^{-1} through the n x n Woodbury
    # system, equal the dense A and a dense solve, for each layout of X (a Fortran-ordered
    # X takes the transposed products of WStepQuadratic.xv / xtu).
    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 90))
    S, _ = adaptive_neighbors(X, 5)
    g = rng.uniform(0.5, 50.0, 90)
    R = rng.standard_normal((90, 4))
    A, _ = WStepQuadratic(X, 0.7, dense=True).matrix(S, g, 0.3)
    Xl = {"C": X, "F": np.asfortranarray(X), "sparse": sparse.csr_matrix(X)}[layout]
    step = WStepQuadratic(Xl, 0.7, dense=False)
    U = rng.standard_normal((30, 4))
    np.testing.assert_allclose(step.xv(R), X @ R, rtol=1e-12, atol=1e-12 * np.abs(X @ R).max())
    np.testing.assert_allclose(step.xtu(U), X.T @ U, rtol=1e-12,
                               atol=1e-12 * np.abs(X.T @ U).max())
    np.testing.assert_allclose(step.product(_sym_laplacian(S), g, 0.3)(R), A @ R, rtol=1e-10,
                               atol=1e-10 * np.abs(A @ R).max())
    inv = step.pushthrough_inverse(_sym_laplacian(S), g, 0.3)
    expected = np.linalg.solve(A, R)
    np.testing.assert_allclose(inv(R), expected, rtol=1e-8, atol=1e-10 * np.abs(expected).max())
    # the inverse is applied as a symmetric map (P = N T^{-1} symmetrised): the conjugate
    # gradients it preconditions need <u, A^{-1} v> = <A^{-1} u, v>
    R2 = rng.standard_normal((90, 4))
    lhs, rhs = np.sum(R2 * inv(R)), np.sum(inv(R2) * R)
    assert abs(lhs - rhs) <= 1e-13 * np.sqrt(np.sum(R2 * inv(R2)) * np.sum(R * inv(R)))
    # gamma = 0 (A singular when d > n): no push-through inverse
    assert step.pushthrough_inverse(_sym_laplacian(S), g, 0.0) is None


def test_pushthrough_w_steps_match_the_eigenbasis():
    # The later W-steps by products with X and the push-through inverse, or in A's
    # eigenbasis: every W-step is solved to w_tol from the same start, so the fits
    # agree to that tolerance.
    X, _, _ = make_planted_clusters(40, n_informative=5, n_noise=115, n_clusters=3,
                                    random_state=1)
    fits = {}
    for solver in ("dense", "pushthrough"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fits[solver] = UFSA(10, n_clusters=3, n_neighbors=5, max_iter=15, solver=solver,
                                random_state=0).fit(X)
    a, b = fits["dense"], fits["pushthrough"]
    assert (a.solver_, b.solver_) == ("dense", "pushthrough")
    assert a.w_step_converged_.all() and b.w_step_converged_.all()
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-8)
    np.testing.assert_allclose(a.scores_, b.scores_, atol=1e-7)


def test_pushthrough_decomposes_after_a_long_w_step(monkeypatch):
    # solver="pushthrough" decomposes A for the first W-step and for each W-step after
    # one of more than EIGENBASIS_AFTER_ITERATIONS trust-region iterations; the others
    # are pushed through (no decomposition).
    import ufsel.selectors.adaptive_graph._ufsa_wstep as module

    X, _, _ = make_planted_clusters(40, n_informative=5, n_noise=115, n_clusters=3,
                                    random_state=1)
    calls = []
    eigh = module.linalg.eigh

    def counting_eigh(*args, **kwargs):
        calls.append(1)
        return eigh(*args, **kwargs)

    monkeypatch.setattr(module.linalg, "eigh", counting_eigh)
    kw = dict(n_clusters=3, n_neighbors=5, max_iter=8, tol=0.0, solver="pushthrough",
              random_state=0)
    for threshold in (10**6, 0):
        calls.clear()
        monkeypatch.setattr(module, "EIGENBASIS_AFTER_ITERATIONS", threshold)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            sel = UFSA(10, **kw).fit(X)
        assert sel.solver_ == "pushthrough" and sel.n_iter_ == 8
        long_steps = int(np.sum(sel.w_step_iter_[:-1] > threshold))
        assert len(calls) == 1 + long_steps
    assert len(calls) == 8  # threshold 0: every W-step in the eigenbasis


def test_pushthrough_w_steps_without_regression_term():
    # alpha = 0: B = 0, the W-step is an eigenproblem whose rotations within span(W) are
    # flat; the push-through W-steps still meet w_tol and agree with the eigenbasis.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 80))
    # (on the fixed-lambda path; with lambda_update="adaptive" one of the 20 pushed-through
    # W-steps of this fit ends at its rounding floor, 25 iterations, not at w_tol, while
    # its objective still agrees with the eigenbasis to 1e-11)
    kw = dict(n_clusters=4, n_neighbors=5, max_iter=20, random_state=0, alpha=0.0,
              lambda_update="fixed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = UFSA(10, solver="dense", **kw).fit(X)
        b = UFSA(10, solver="pushthrough", **kw).fit(X)
    assert b.solver_ == "pushthrough" and b.w_step_converged_.all()
    np.testing.assert_allclose(b.objective_, a.objective_, rtol=1e-8)


def test_small_fits_run_serially_and_do_not_depend_on_the_thread_count(planted):
    """The thread policy (ufsel.utils.thread_limit, applied by the base) runs a small
    fit on one thread; UFSA then skips its per-W-step limit (``serial``)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    # during a small fit every pool runs one thread
    seen = []
    X, _, _ = planted
    sel = UFSA(5, n_clusters=4, n_neighbors=10, max_iter=5, random_state=0)
    original = sel._fit_iterations

    def spy(X, serial):
        seen.extend(p["num_threads"] for p in threadpool_info())
        assert serial
        return original(X, serial)

    sel._fit_iterations = spy
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sel.fit(X)
        with threadpool_limits(limits=2):
            again = UFSA(5, n_clusters=4, n_neighbors=10, max_iter=5, random_state=0).fit(X)
    assert seen and set(seen) == {1}
    np.testing.assert_array_equal(sel.scores_, again.scores_)


def test_constant_features_are_ignored():
    X, _, informative = make_planted_clusters(120, n_informative=4, n_noise=10, n_clusters=3,
                                              random_state=2)
    X = np.hstack([X, np.full((120, 3), 7.0)])  # objective (7) would love these
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sel = UFSA(4, n_clusters=3, n_neighbors=10, random_state=0).fit(X)
    assert sel.constant_features_[-3:].all() and not sel.constant_features_[:-3].any()
    assert np.all(sel.scores_[-3:] == 0)
    assert np.all(sel.ranking_[-3:] > 14 - 3)


def test_sparse_input_and_determinism(planted):
    X, _, _ = planted
    Xs = sparse.csr_matrix(np.where(X > 0.5, X, 0.0))
    kw = dict(n_clusters=3, n_neighbors=5, max_iter=8, random_state=4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = UFSA(5, **kw).fit(Xs)
        b = UFSA(5, **kw).fit(Xs.toarray())
        c = UFSA(5, **kw).fit(Xs)
    # Sparse and dense input are the same problem; X^T H X and the distances are
    # computed by different formulas, so they agree to rounding, amplified by at
    # most a few orders over the iterations (every step is a smooth map).
    np.testing.assert_allclose(a.objective_, b.objective_, rtol=1e-8)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(a.ranking_, b.ranking_)
    np.testing.assert_array_equal(a.ranking_, c.ranking_)
    np.testing.assert_array_equal(a.objective_, c.objective_)


def test_scores_stable_under_tiny_perturbation(planted, fitted, fitted_adaptive):
    X, _, _ = planted
    rng = np.random.default_rng(7)
    Xp = X * (1.0 + 1e-12 * rng.standard_normal(X.shape))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for ref in (fitted, fitted_adaptive):
            p = UFSA(5, n_clusters=4, n_neighbors=10, max_iter=60, tol=1e-7,
                     lambda_update=ref.lambda_update, random_state=0).fit(Xp)
            assert p.n_iter_ == ref.n_iter_
            np.testing.assert_allclose(p.objective_, ref.objective_, rtol=1e-8)
            np.testing.assert_allclose(p.scores_, ref.scores_, rtol=1e-6, atol=1e-9)
            np.testing.assert_array_equal(p.ranking_, ref.ranking_)


def test_w_steps_meet_their_tolerance(fitted, planted):
    assert fitted.w_step_converged_.shape == (fitted.n_iter_,)
    assert fitted.w_step_converged_.all()
    assert np.all(fitted.w_step_iter_ >= 1) and np.all(fitted.w_step_iter_ < fitted.w_max_iter)
    X, _, _ = planted
    with pytest.warns(ConvergenceWarning, match="W-steps stopped at w_max_iter=2"):
        sel = UFSA(5, n_clusters=4, n_neighbors=10, max_iter=3, tol=0.0, w_max_iter=2,
                   w_tol=1e-12, random_state=0).fit(X)
    assert not sel.w_step_converged_.any()
    np.testing.assert_array_equal(sel.w_step_iter_, 2)


@pytest.mark.parametrize("mode", ["adaptive", "fixed"])
def test_converges_within_default_max_iter(planted, mode):
    X, _, informative = planted
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # neither loop may hit its guard
        sel = UFSA(5, n_clusters=4, n_neighbors=10, lambda_update=mode, random_state=0).fit(X)
    assert sel.n_iter_ < sel.max_iter
    obj = sel.objective_
    assert abs(obj[-2] - obj[-1]) < sel.tol * abs(obj[-2])
    if mode == "fixed":  # one objective function: every step decreases it
        assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))
    assert len(set(np.flatnonzero(sel.get_support())) & set(informative)) >= 4


def test_convergence_warning_and_errors(planted):
    X, _, _ = planted
    with pytest.warns(ConvergenceWarning, match="UFSA did not converge"):
        UFSA(5, n_clusters=2, max_iter=2, tol=0.0, random_state=0).fit(X)
    with pytest.raises(ValueError, match="n_clusters <= n_features"):
        UFSA(1, n_clusters=3).fit(X[:, :2])
    with pytest.raises(ValueError, match="n_samples >= n_neighbors"):
        UFSA(1, n_neighbors=15).fit(X[:10])


def test_s_step_over_all_candidates_equals_exact(planted):
    X = planted[0][:150]
    Z = X[:, :3]
    n = Z.shape[0]
    everyone = np.tile(np.arange(n), (n, 1))
    everyone[np.arange(n), np.arange(n)] = -1
    S0, lam = adaptive_neighbors(Z, 5)
    S1, lam1 = adaptive_neighbors(Z, 5, candidates=everyone)
    np.testing.assert_allclose(lam1, lam)
    np.testing.assert_allclose(S1.toarray(), S0.toarray(), atol=1e-12)
    S2, _ = adaptive_neighbors(Z * 1.1, 5, lam)
    S3, _ = adaptive_neighbors(Z * 1.1, 5, lam, candidates=everyone)
    np.testing.assert_allclose(S3.toarray(), S2.toarray(), atol=1e-12)


def test_two_hop_s_step_keeps_objective_monotone(planted):
    X = planted[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        sel = UFSA(5, n_clusters=4, n_neighbors=5, s_step="two_hop", max_iter=15,
                   lambda_update="fixed", random_state=0).fit(X)
    assert sel.s_step_ == "two_hop"
    obj = sel.objective_
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))
    S = sel.similarity_
    np.testing.assert_allclose(np.asarray(S.sum(axis=1)).ravel(), 1.0)
    assert S.min() >= 0 and S.diagonal().max() == 0
    top = set(np.flatnonzero(sel.get_support()))
    assert len(top & set(planted[2])) >= 4


@pytest.mark.parametrize("dim", [2, 5, 16])
def test_kd_tree_s_step_search_equals_the_gram_search(dim):
    # The S-step's neighbours are a function of the points (exact distances, ties to the
    # smaller index), whichever search found the candidates: rounded coordinates give
    # many equal distances and a block of duplicates fills whole rows with zeros.
    from ufsel.graph._adaptive import nearest_by_exact_distance

    rng = np.random.default_rng(dim)
    Z = np.round(rng.normal(size=(400, dim)), 1)
    Z[10:40] = Z[3]
    for k in (1, 5, 18):
        d_tree, i_tree = nearest_by_exact_distance(Z, k, algorithm="kd_tree")
        d_gram, i_gram = nearest_by_exact_distance(Z, k, algorithm="brute")
        np.testing.assert_array_equal(i_tree, i_gram)
        np.testing.assert_array_equal(d_tree, d_gram)


def test_kd_tree_s_step_leaves_the_fit_unchanged(planted, monkeypatch):
    # A fit whose projections have few coordinates (k-d tree) equals the same fit with
    # the Gram search for every S-step: same objective and same scores.
    import ufsel.graph._adaptive as adaptive

    X = planted[0]
    params = dict(n_clusters=3, n_neighbors=8, max_iter=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        tree = UFSA(5, **params).fit(X)
        monkeypatch.setattr(adaptive, "_KD_TREE_MAX_DIM", 0)
        gram = UFSA(5, **params).fit(X)
    np.testing.assert_array_equal(tree.objective_, gram.objective_)
    np.testing.assert_array_equal(tree.scores_, gram.scores_)
    assert (tree.similarity_ != gram.similarity_).nnz == 0


def test_cholesky_w_steps_match_the_eigenbasis():
    # solver="cholesky" decomposes A for the first W-step only and preconditions the
    # others by A's Cholesky factor: every W-step is solved to w_tol, so the objective
    # and the ranking equal those of the dense solver (A decomposed in every W-step).
    X, _, informative = make_planted_clusters(300, n_informative=6, n_noise=244,
                                              n_clusters=2, random_state=1)
    kw = dict(n_clusters=2, n_neighbors=8, max_iter=12, tol=0.0, random_state=0)
    fits = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for solver in ("dense", "cholesky"):
            fits[solver] = UFSA(10, solver=solver, **kw).fit(X)
    a, b = fits["dense"], fits["cholesky"]
    assert (a.solver_, b.solver_) == ("dense", "cholesky")
    assert b.w_step_converged_.all()
    np.testing.assert_allclose(b.objective_, a.objective_, rtol=1e-8)
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=1e-6, atol=1e-9)
    np.testing.assert_array_equal(np.argsort(-b.scores_)[:10], np.argsort(-a.scores_)[:10])
