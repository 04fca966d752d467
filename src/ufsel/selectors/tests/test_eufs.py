"""EUFS (Wang, Tang, Liu 2015): planted features, ADMM behaviour, proximal steps."""

import numpy as np
import pytest

from ufsel import EUFS
from ufsel.datasets import make_planted_clusters
from ufsel.graph import graph_laplacian, knn_affinity
from ufsel.linalg import row_soft_threshold
from ufsel.selectors.sparse_regression._eufs import _nonneg_quadratic, _procrustes, eufs_objective


@pytest.mark.parametrize("seed", [0, 1])
def test_finds_planted_features(seed):
    X, _, informative = make_planted_clusters(random_state=seed)
    sel = EUFS(5, n_clusters=4, random_state=0).fit(X)
    assert set(np.flatnonzero(sel.get_support())) == set(informative)


def test_admm_converges_to_feasible_point_with_lower_objective():
    X, _, _ = make_planted_clusters(random_state=2)
    sel = EUFS(5, n_clusters=4, random_state=0).fit(X)
    assert sel.n_iter_ < sel.max_iter  # stopped on the residual tolerance
    obj = np.asarray(sel.objective_)
    assert obj[-1] < obj[0]
    U = sel.U_
    np.testing.assert_allclose(U.T @ U, np.eye(4), atol=1e-8)
    assert U.min() > -0.05 * np.abs(U).max()  # U ~ Z >= 0 at convergence
    L = graph_laplacian(knn_affinity(X, 5, weight="heat", random_state=0))
    assert eufs_objective(X, U, sel.V_, L, alpha=1.0, beta=1.0) == pytest.approx(obj[-1])


def test_proximal_blocks_brute_force():
    rng = np.random.RandomState(0)
    E = rng.standard_normal((6, 4))
    tau = 0.8
    Z = row_soft_threshold(E, tau)
    f = lambda Z_: 0.5 * np.sum((Z_ - E) ** 2) + tau * np.linalg.norm(Z_, axis=1).sum()  # noqa: E731
    for _ in range(200):
        assert f(Z) <= f(Z + 1e-3 * rng.standard_normal(Z.shape)) + 1e-12
    N = rng.standard_normal((8, 3))
    U = _procrustes(N)
    np.testing.assert_allclose(U.T @ U, np.eye(3), atol=1e-12)
    for _ in range(50):
        Q, _ = np.linalg.qr(rng.standard_normal((8, 3)))
        assert np.trace(U.T @ N) >= np.trace(Q.T @ N) - 1e-12


def test_nonneg_quadratic_block_satisfies_kkt():
    X, _, _ = make_planted_clusters(n_samples=40, random_state=0)
    L = graph_laplacian(knn_affinity(X, 5, weight="binary"))
    rng = np.random.RandomState(1)
    T = rng.standard_normal((40, 3))
    beta, mu = 0.5, 2.0
    lip = 2.0 * float(np.abs(L.diagonal()).max())
    Z = _nonneg_quadratic(L, T, beta, mu, np.zeros_like(T), 500, lip)
    grad = 2 * beta * (L @ Z) + mu * (Z - T)
    assert Z.min() >= 0
    assert np.abs(grad[Z > 1e-10]).max() < 1e-6  # stationarity on the support
    assert grad[Z <= 1e-10].min() > -1e-6  # non-negative gradient where Z = 0


def test_row_blocks_give_the_whole_matrix_iterates(monkeypatch):
    # the n x d updates are row-separable: 8-row blocks must follow the one-block run
    import ufsel.selectors.sparse_regression._eufs as eufs

    X, _, _ = make_planted_clusters(random_state=4)
    whole = EUFS(5, n_clusters=4, random_state=0).fit(X)
    monkeypatch.setattr(eufs, "_BLOCK_BYTES", 1)  # 8 rows per block
    blocked = EUFS(5, n_clusters=4, random_state=0).fit(X)
    assert blocked.n_iter_ == whole.n_iter_ > 1
    np.testing.assert_allclose(blocked.objective_, whole.objective_, rtol=1e-10)
    np.testing.assert_allclose(blocked.residuals_, whole.residuals_, rtol=1e-8, atol=1e-14)
    np.testing.assert_array_equal(blocked.ranking_, whole.ranking_)
