"""SOGFS (Nie, Zhu, Li 2016): planted features, monotone objective, sparse blocks."""

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse import csgraph

from ufsel import SOGFS
from ufsel.datasets import make_planted_clusters
from ufsel.graph import graph_laplacian, knn_affinity, laplacian_smallest
from ufsel.linalg import center_unit_norm, partial_eigh
from ufsel.selectors.adaptive_graph._sogfs import _candidates, _s_step, sogfs_objective


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


def _disconnected_laplacian(sizes, seed=0):
    """Laplacian of a graph made of random connected pieces (a path plus random edges),
    the pieces' nodes interleaved so that components are not index blocks."""
    rng = np.random.default_rng(seed)
    n = sum(sizes)
    perm = rng.permutation(n)
    rows, cols, start = [], [], 0
    for size in sizes:
        nodes = perm[start:start + size]
        start += size
        rows += list(nodes[:-1]) + list(rng.choice(nodes, size))
        cols += list(nodes[1:]) + list(rng.choice(nodes, size))
    A = sparse.coo_matrix((rng.uniform(0.5, 1.5, len(rows)), (rows, cols)), shape=(n, n))
    A = (A + A.T).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    return graph_laplacian(A), perm, sizes


def test_laplacian_smallest_on_a_disconnected_graph_is_exact_and_canonical():
    """Eigenvalue 0 once per component: its eigenvectors are the normalised component
    indicators (exact zeros, in the order of the components' smallest node), the
    non-zero eigenpairs are those of the dense decomposition. One component of 260
    nodes takes the ARPACK path, the others the dense one."""
    L, perm, sizes = _disconnected_laplacian([30, 260, 45])
    n = L.shape[0]
    _, labels = csgraph.connected_components(L, directed=False)
    indicators = np.zeros((n, 3))
    indicators[np.arange(n), labels] = 1.0 / np.sqrt(np.bincount(labels)[labels])
    w, V = laplacian_smallest(L, 2, random_state=0)
    assert np.array_equal(w, [0.0, 0.0]) and np.array_equal(V, indicators[:, :2])
    w, V = laplacian_smallest(L, 7, random_state=0)
    wd, Vd = np.linalg.eigh(L.toarray())
    np.testing.assert_array_equal(w[:3], 0.0)
    np.testing.assert_array_equal(V[:, :3], indicators)
    np.testing.assert_allclose(w[3:], wd[3:7], rtol=1e-9)
    assert wd[7] - wd[6] > 1e-3  # no tie at the cut: the subspace is determined
    np.testing.assert_allclose(V @ V.T, Vd[:, :7] @ Vd[:, :7].T, atol=1e-9)
    np.testing.assert_allclose(V.T @ V, np.eye(7), atol=1e-12)


def test_sogfs_initial_f_averages_over_the_extra_components():
    """With q > c components, any c null vectors are a round-off choice: the first F
    stands for the average projector (c / q) U U^T, U the normalised indicators."""
    from ufsel.selectors.adaptive_graph._sogfs import _initial_f

    L, _, _ = _disconnected_laplacian([30, 40, 45, 25])
    _, labels = csgraph.connected_components(L, directed=False)
    U = np.zeros((L.shape[0], 4))
    U[np.arange(L.shape[0]), labels] = 1.0 / np.sqrt(np.bincount(labels)[labels])
    F = _initial_f(L, 2, 0)
    np.testing.assert_allclose(F @ F.T, 0.5 * U @ U.T, atol=1e-15)
    F = _initial_f(L, 5, 0)  # q <= c: the c smallest eigenvectors
    wd, Vd = np.linalg.eigh(L.toarray())
    np.testing.assert_allclose(F @ F.T, Vd[:, :5] @ Vd[:, :5].T, atol=1e-9)


def test_sogfs_candidates_do_not_follow_rounding_among_nearly_coincident_points():
    """A projection that maps a group of samples to almost one point (spread 1e-11 at
    distance 1 from the origin): the search's expanded distances are rounding there, but
    the S-step's candidates are the true nearest (distances from differences, as a full
    computation gives them), and reversing the order of the points gives the same sets."""
    from ufsel.graph import knn_graph, nearest_by_exact_distance

    rng = np.random.default_rng(0)
    Z = np.vstack([1.0 + 1e-11 * rng.standard_normal((60, 3)), rng.standard_normal((40, 3))])
    diff = Z[:, None, :] - Z[None, :, :]
    D = np.einsum("ijk,ijk->ij", diff, diff)
    np.fill_diagonal(D, np.inf)
    expected = np.argsort(D, axis=1, kind="stable")[:, :5]
    d2, ind = nearest_by_exact_distance(Z, 5, algorithm="brute")
    assert np.array_equal(ind, expected)
    np.testing.assert_array_equal(d2, np.take_along_axis(D, expected, axis=1))
    _, searched = knn_graph(Z, 5, algorithm="brute")
    assert not all(set(a) == set(b) for a, b in zip(searched[:60], expected[:60]))
    rev = np.arange(100)[::-1]
    _, ind_rev = nearest_by_exact_distance(Z[rev], 5, algorithm="brute")
    assert all(set(rev[ind_rev[rev[i]]]) == set(expected[i]) for i in range(100))


def test_nearest_by_exact_distance_refuses_an_impossible_count():
    from ufsel.graph import nearest_by_exact_distance

    Z = np.random.default_rng(0).standard_normal((6, 2))
    for k in (0, 6):
        with pytest.raises(ValueError, match=r"n_neighbors must be in \[1, n_samples - 1\]"):
            nearest_by_exact_distance(Z, k)
    assert nearest_by_exact_distance(Z, 5)[1].shape == (6, 5)
