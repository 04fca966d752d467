"""SOGFS (Nie, Zhu, Li 2016): planted features, monotone objective, sparse blocks."""

import numpy as np
import pytest
from scipy import sparse

from ufsel import SOGFS
from ufsel._sogfs import _candidates, _s_step, sogfs_objective
from ufsel.datasets import make_planted_clusters
from ufsel.graph import graph_laplacian, knn_affinity, laplacian_smallest
from ufsel.linalg import center_unit_norm, partial_eigh


@pytest.mark.parametrize("seed", [0, 2])
def test_finds_planted_features(seed):
    X, _, informative = make_planted_clusters(random_state=seed)
    sel = SOGFS(5, n_clusters=4, random_state=0).fit(X)
    assert len(set(informative) & set(np.flatnonzero(sel.get_support()))) >= 4
    S = sel.S_
    np.testing.assert_allclose(np.asarray(S.sum(axis=1)).ravel(), 1.0)
    assert S.data.min() >= 0


def test_objective_decreases_with_fixed_lambda():
    X, _, _ = make_planted_clusters(random_state=1)
    sel = SOGFS(5, n_clusters=4, adapt_lambda=False, max_iter=15, tol=0.0,
                random_state=0)
    with pytest.warns(Warning):  # runs to max_iter on purpose
        sel.fit(X)
    obj = np.asarray(sel.objective_)
    assert obj.size == 15
    assert np.all(np.diff(obj) <= 1e-9 * np.abs(obj[:-1]))
    np.testing.assert_allclose(sel.W_.T @ sel.W_, np.eye(4), atol=1e-8)


def test_s_step_is_exact_on_candidates():
    rng = np.random.RandomState(0)
    Z = rng.standard_normal((30, 3))
    F = rng.standard_normal((30, 2))
    S0 = sparse.csr_matrix(knn_affinity(Z, 4, weight="binary", symmetrize_mode="none"))
    C = _candidates(np.tile(np.arange(5), (30, 1)), S0)
    alpha, lam = 0.7, 0.3
    S = _s_step(Z, F, C, alpha, lam).toarray()
    for i in range(0, 30, 7):
        cand = C[i][C[i] >= 0]
        assert len(set(cand)) == cand.size and set(np.flatnonzero(S[i])) <= set(cand)
        lin = np.sum((Z[i] - Z[cand]) ** 2, axis=1) + lam * np.sum((F[i] - F[cand]) ** 2, axis=1)
        best = S[i, cand]
        assert best.sum() == pytest.approx(1.0)
        for _ in range(100):  # random feasible points on the simplex are never better
            p = rng.dirichlet(np.ones(cand.size))
            assert lin @ best + alpha * best @ best <= lin @ p + alpha * p @ p + 1e-12


def test_objective_function_matches_trace_form():
    X = center_unit_norm(make_planted_clusters(n_samples=40, random_state=0)[0])
    S = knn_affinity(X, 4, weight="binary", symmetrize_mode="none")
    S = sparse.diags(1.0 / np.asarray(S.sum(axis=1)).ravel()) @ S
    W = np.linalg.qr(np.random.RandomState(0).standard_normal((X.shape[1], 3)))[0]
    F = np.linalg.qr(np.random.RandomState(1).standard_normal((40, 2)))[0]
    Sd = S.toarray()
    Z = X @ W
    direct = sum(Sd[i, j] * (np.sum((Z[i] - Z[j]) ** 2) + 0.5 * Sd[i, j]
                             + 0.125 * np.sum((F[i] - F[j]) ** 2))
                 for i in range(40) for j in range(40))
    direct += 2.0 * np.sum(np.sqrt(np.sum(W * W, axis=1) + 1e-12))
    got = sogfs_objective(X, W, S, F, alpha=0.5, gamma=2.0, lam=0.125, eps=1e-12)
    assert got == pytest.approx(direct, rel=1e-10)


def test_laplacian_smallest_shift_invert_matches_dense():
    X, _, _ = make_planted_clusters(n_samples=400, random_state=0)
    L = graph_laplacian(knn_affinity(X, 5, weight="heat"))
    w, V = laplacian_smallest(L, 6, random_state=0)
    wd, _ = partial_eigh(L, 6, method="dense")
    np.testing.assert_allclose(w, wd, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(L @ V - V * w, axis=0), 0, atol=1e-8)


def test_laplacian_smallest_falls_back_when_arpack_fails(monkeypatch):
    """An ARPACK failure (SOGFS on palm, 101 of 2000 eigenpairs: 'no shifts could be
    applied') is not the user's error: the dense solve takes over."""
    from scipy.sparse import linalg as splinalg

    from ufsel.graph import _spectral

    def stalled(*args, **kwargs):
        raise splinalg.ArpackError(3)

    X, _, _ = make_planted_clusters(n_samples=400, random_state=0)
    L = graph_laplacian(knn_affinity(X, 5, weight="heat"))
    monkeypatch.setattr(_spectral.splinalg, "eigsh", stalled)
    w, V = laplacian_smallest(L, 6, random_state=0)
    wd, _ = partial_eigh(L, 6, method="dense")
    np.testing.assert_allclose(w, wd, atol=1e-9)
    np.testing.assert_allclose(np.linalg.norm(L @ V - V * w, axis=0), 0, atol=1e-8)
