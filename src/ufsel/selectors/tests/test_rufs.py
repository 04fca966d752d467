"""RUFS: the cached objective terms, the reference (FSASL) local kernel."""

import warnings

import numpy as np
import pytest
from scipy import sparse

from ufsel import RUFS
from ufsel.datasets import make_planted_clusters
from ufsel.graph import local_krr_laplacian
from ufsel.linalg import scaled_indicator
from ufsel.selectors.sparse_regression._rufs import rufs_objective


def _fit(est, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X)


@pytest.mark.parametrize("kernel", ["heat", "affinity"])
@pytest.mark.parametrize("hidden", [False, True])
def test_recorded_objective_is_the_objective_of_the_final_iterate(kernel, hidden):
    # The fit keeps the objective's terms cached per block; the last recorded
    # value must be rufs_objective evaluated afresh at the returned (G, F, W).
    X, _, _ = make_planted_clusters(n_samples=60, n_informative=4, n_noise=8, n_clusters=3, random_state=0)
    X = np.abs(X)
    kw = dict(f_reg=1e-4, g_l1=0.1) if hidden else {}
    est = _fit(RUFS(n_clusters=3, max_iter=8, tol=0, local_kernel=kernel, random_state=0, **kw), X)
    L = local_krr_laplacian(X, 5, reg=0.1, kernel=kernel, random_state=np.random.RandomState(0))
    value = rufs_objective(X, est.G_, est.F_, est.W_, L, 1.0, 1.0, 1.0, 1e7, **kw)
    np.testing.assert_allclose(est.objective_[-1], value, rtol=1e-12)
    assert np.all(np.diff(est.objective_) <= 1e-9 * np.abs(est.objective_[:-1]))


def test_affinity_kernel_changes_the_graph_term_only():
    X, _, _ = make_planted_clusters(n_samples=60, n_informative=4, n_noise=8, n_clusters=3, random_state=1)
    X = np.abs(X)
    a = _fit(RUFS(4, n_clusters=3, max_iter=5, nu=0.0, random_state=0), X)
    b = _fit(RUFS(4, n_clusters=3, max_iter=5, nu=0.0, local_kernel="affinity",
                  random_state=0), X)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-12)  # nu = 0: L unused
    c = _fit(RUFS(4, n_clusters=3, max_iter=5, nu=1.0, local_kernel="affinity",
                  random_state=0), X)
    assert not np.allclose(a.objective_, c.objective_)


def test_rejects_unknown_local_kernel():
    with pytest.raises(ValueError, match="local_kernel"):
        RUFS(n_clusters=2, local_kernel="rbf").fit(np.abs(np.random.RandomState(0).randn(20, 4)))


@pytest.mark.parametrize("as_sparse", [False, True])
def test_residual_row_norms_accurate_where_rows_are_reconstructed(as_sparse):
    # The expansion ||x||^2 - 2 g F x^T + ||g F||^2 cancels catastrophically on
    # rows that G F reproduces; those must come out as accurately as from the
    # residual itself (here: exactly reconstructed rows give ~0, not ~1e-13).
    from scipy import sparse

    from ufsel.selectors.sparse_regression._rufs import residual_row_norms_sq

    rng = np.random.RandomState(0)
    G = np.abs(rng.randn(30, 3))
    F = np.abs(rng.randn(3, 40)) * 100.0
    X = G @ F
    X[::2] += rng.rand(15, 40)  # half the rows off the factorisation
    expect = np.sum((X - G @ F) ** 2, axis=1)
    got = residual_row_norms_sq(sparse.csr_matrix(X) if as_sparse else X, G, F)
    np.testing.assert_allclose(got[::2], expect[::2], rtol=1e-9)
    assert np.all(got[1::2] <= 1e-20)


def test_kmeans_start_elkan_equals_lloyd():
    # RUFS's k-means start uses Elkan's variant: the same Lloyd iterations
    from ufsel.linalg import kmeans_indicator

    X, _, _ = make_planted_clusters(n_samples=300, random_state=5)
    for seed in range(3):
        elkan = kmeans_indicator(X, 6, random_state=seed, init="random", algorithm="elkan")
        lloyd = kmeans_indicator(X, 6, random_state=seed, init="random")
        np.testing.assert_array_equal(elkan, lloyd)


def test_rufs_objective_terms():
    rng = np.random.RandomState(0)
    X = np.abs(rng.randn(20, 6))
    G = scaled_indicator(rng.randint(0, 3, 20), 3, offset=0.0)
    F = np.abs(rng.randn(3, 6))
    W = rng.randn(6, 3)
    L = sparse.identity(20, format="csr")
    base = rufs_objective(X, G, F, W, L, 0.0, 1.0, 1.0, 0.0, eps=0.0)
    expect = (np.linalg.norm(X - G @ F, axis=1).sum() + np.linalg.norm(X @ W - G, axis=1).sum()
              + np.linalg.norm(W, axis=1).sum())
    np.testing.assert_allclose(base, expect)
    hidden = rufs_objective(X, G, F, W, L, 0.0, 1.0, 1.0, 0.0, f_reg=2.0, g_l1=3.0, eps=0.0)
    np.testing.assert_allclose(hidden - base, 2.0 * np.linalg.norm(F, axis=0).sum() + 3.0 * G.sum())
