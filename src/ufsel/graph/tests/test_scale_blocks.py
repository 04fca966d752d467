"""Scale building blocks: neighbour-search choice, AMG eigensolver, blocked products."""

import sys

import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import make_blobs

from ufsel.graph import (
    APPROX_NEIGHBORS_MIN_SAMPLES,
    knn_affinity,
    knn_graph,
    resolve_neighbors_algorithm,
    spectral_embedding,
)
from ufsel.graph._approximate import _drop_self
from ufsel.linalg import (
    graph_quadratic,
    partial_eigh,
    scatter_matrix,
    scatter_operator,
    transpose_dot,
    weighted_moments,
)


@pytest.fixture
def blobs():
    X, _ = make_blobs(400, n_features=6, centers=3, cluster_std=2.0, random_state=0)
    return X


def test_resolve_auto_is_exact_below_threshold(blobs):
    assert resolve_neighbors_algorithm("auto", blobs) == "exact"
    assert resolve_neighbors_algorithm("brute", blobs) == "exact"
    assert APPROX_NEIGHBORS_MIN_SAMPLES > blobs.shape[0]
    with pytest.raises(ValueError, match="valid options"):
        resolve_neighbors_algorithm("annoy", blobs)


def test_approximate_without_pynndescent_names_the_extra(blobs, monkeypatch):
    monkeypatch.setitem(sys.modules, "pynndescent", None)  # import now raises ImportError
    monkeypatch.setitem(sys.modules, "faiss", None)
    with pytest.raises(ImportError, match=r"ufsel\[ann\]"):
        knn_graph(blobs, 5, algorithm="approximate")
    big = np.zeros((APPROX_NEIGHBORS_MIN_SAMPLES, 1))
    assert resolve_neighbors_algorithm("auto", big) == "exact"  # falls back quietly


def test_drop_self_removes_own_index_or_farthest():
    ind = np.array([[0, 3, 1], [2, 0, 1], [0, 3, 4]])  # row 2 misses itself
    dist = np.array([[0.0, 1.0, 2.0], [0.5, 0.7, 0.0], [1.0, 2.0, 3.0]])
    d, i = _drop_self(dist, ind)
    np.testing.assert_array_equal(i, [[3, 1], [2, 0], [0, 3]])
    np.testing.assert_array_equal(d, [[1.0, 2.0], [0.5, 0.7], [1.0, 2.0]])


@pytest.mark.slow
def test_approximate_neighbours_recall(blobs):
    pytest.importorskip("pynndescent")
    d0, i0 = knn_graph(blobs, 5, algorithm="exact")
    d1, i1 = knn_graph(blobs, 5, algorithm="nndescent", random_state=0)
    assert i1.shape == i0.shape
    assert not np.any(i1 == np.arange(len(blobs))[:, None])  # never itself
    recall = np.mean([len(set(a) & set(b)) / 5 for a, b in zip(i0, i1)])
    assert recall > 0.9
    assert np.all(np.diff(d1, axis=1) >= -1e-6)


def test_knn_affinity_float32_stays_float32(blobs):
    W = knn_affinity(blobs.astype(np.float32), 5)
    assert W.dtype == np.float32
    assert knn_affinity(blobs, 5).dtype == np.float64


def _amg_against_arpack(monkeypatch=None, maxiter=None):
    """(Laplacian eigenvalues, D-inner products) of the AMG and ARPACK embeddings of one
    4-cluster graph; ``maxiter`` forces LOBPCG's iteration limit."""
    X, _ = make_blobs(3000, n_features=5, centers=4, cluster_std=3.0, random_state=1)
    W = knn_affinity(X, 10, weight="binary")
    Y0, l0 = spectral_embedding(W, 4, eigen_solver="arpack", random_state=0,
                                return_eigenvalues=True)
    if maxiter is not None:
        from ufsel.graph import _spectral

        monkeypatch.setattr(_spectral, "_AMG_MAXITER", maxiter)
    Y1, l1 = spectral_embedding(W, 4, eigen_solver="amg", random_state=0,
                                return_eigenvalues=True)
    deg = np.asarray(W.sum(axis=1)).ravel()
    # same D-orthonormal subspace: the D-inner products form an orthogonal matrix
    return l0, l1, np.abs(np.linalg.svd(Y0.T @ (deg[:, None] * Y1), compute_uv=False))


def test_amg_embedding_matches_arpack():
    pytest.importorskip("pyamg")
    l0, l1, sv = _amg_against_arpack()
    np.testing.assert_allclose(l1, l0, atol=1e-6)
    np.testing.assert_allclose(sv, 1.0, atol=1e-4)


def test_amg_embedding_falls_back_to_arpack_when_lobpcg_stops_early(monkeypatch):
    pytest.importorskip("pyamg")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fallback is silent: its result is converged
        l0, l1, sv = _amg_against_arpack(monkeypatch, maxiter=1)  # 1 step cannot converge
    np.testing.assert_allclose(l1, l0, atol=1e-8)
    np.testing.assert_allclose(sv, 1.0, atol=1e-6)


def test_partial_eigh_rejects_unknown_preconditioner():
    A = sparse.diags(np.arange(1.0, 101.0)).tocsr()
    with pytest.raises(ValueError, match="not understood"):
        partial_eigh(A, 2, method="lobpcg", M="ilu")
    pytest.importorskip("pyamg")
    w, _ = partial_eigh(A, 2, method="lobpcg", M="amg", tol=1e-8, random_state=0)
    np.testing.assert_allclose(w, [1.0, 2.0], atol=1e-6)


@pytest.mark.parametrize("fmt", ["dense", "csr", "csc"])
def test_graph_quadratic_and_moments_match_dense(fmt, blobs):
    rng = np.random.default_rng(0)
    X = rng.random((blobs.shape[0], 7)) * (rng.random((blobs.shape[0], 7)) < 0.4)
    W = knn_affinity(blobs, 4)
    Xf = X if fmt == "dense" else getattr(sparse, f"{fmt}_matrix")(X)
    np.testing.assert_allclose(graph_quadratic(Xf, W, block_size=37),
                               np.diag(X.T @ W.toarray() @ X), rtol=1e-12)
    w = rng.random(X.shape[0])
    m1, m2 = weighted_moments(Xf, w)
    np.testing.assert_allclose(m1, X.T @ w, rtol=1e-12)
    np.testing.assert_allclose(m2, (X * X).T @ w, rtol=1e-12)
    np.testing.assert_allclose(transpose_dot(Xf, X[:, :2]), X.T @ X[:, :2], rtol=1e-12)


def test_scatter_operator_matches_scatter_matrix():
    rng = np.random.default_rng(0)
    X = sparse.random(300, 40, density=0.1, random_state=0, format="csr") * 3.0
    S = scatter_matrix(X)
    Xd = X.toarray()
    np.testing.assert_allclose(S, (Xd - Xd.mean(0)).T @ (Xd - Xd.mean(0)), atol=1e-10)
    shift = rng.random(40)
    op = scatter_operator(X, shift=shift)
    V = rng.standard_normal((40, 3))
    np.testing.assert_allclose(op @ V, S @ V - shift[:, None] * V, atol=1e-10)
    np.testing.assert_allclose(op @ V[:, 0], S @ V[:, 0] - shift * V[:, 0], atol=1e-10)


# --- warm starts and candidate searches (alternating methods at large n) ---------------


def _edges(ind):
    n, k = ind.shape
    return sparse.csr_matrix((np.arange(1.0, n * k + 1), (np.repeat(np.arange(n), k), ind.ravel())),
                             shape=(n, n))


def test_two_hop_candidates_brute_force(blobs):
    from ufsel.graph import two_hop_candidates

    _, ind = knn_graph(blobs[:60], 3, algorithm="exact")
    G = _edges(ind)
    cand = two_hop_candidates(G)
    for i in range(60):
        want = set(ind[i]) | {int(m) for j in ind[i] for m in ind[j]}
        want.discard(i)
        got = set(cand[i][cand[i] >= 0].tolist())
        assert got == want
    # hopping through the 1 strongest edge only: own neighbours + that neighbour's
    capped = two_hop_candidates(G, max_degree=1)
    strongest = np.asarray(G.argmax(axis=1)).ravel()
    for i in range(60):
        want = set(ind[i].tolist()) | {int(strongest[strongest[i]])}
        got = set(capped[i][capped[i] >= 0].tolist())
        assert got == want - {i}


def test_knn_among_candidates_equals_exact_over_all_points(blobs):
    from ufsel.graph import knn_among_candidates

    n = blobs.shape[0]
    everyone = np.tile(np.arange(n), (n, 1))
    everyone[np.arange(n), np.arange(n)] = -1
    d, i = knn_among_candidates(blobs, everyone, 7, chunk_size=97)
    de, ie = knn_graph(blobs, 7, algorithm="exact")
    np.testing.assert_allclose(d, de, rtol=1e-10)
    np.testing.assert_array_equal(i, ie)
    # fewer candidates than asked: padded with inf / -1
    d2, i2 = knn_among_candidates(blobs, everyone[:, :3], 5)
    assert np.all(np.isinf(d2[:, 3:])) and np.all(i2[:, 3:] == -1)


def test_nndescent_warm_start_keeps_exact_neighbours(blobs):
    pytest.importorskip("pynndescent")
    _, ie = knn_graph(blobs, 5, algorithm="exact")
    d, i = knn_graph(blobs, 5, algorithm="nndescent", init_indices=ie, random_state=0)
    # NN-descent only replaces a neighbour by a nearer one: started from the exact
    # graph it returns it.
    assert np.all(i >= 0) and not np.any(i == np.arange(len(blobs))[:, None])
    assert np.mean(np.sort(i, axis=1) == np.sort(ie, axis=1)) > 0.99
    with pytest.raises(ValueError, match="one row per sample"):
        knn_graph(blobs, 5, algorithm="nndescent", init_indices=ie[:10])


def test_two_hop_candidates_tops_up_isolated_groups():
    from ufsel.graph import two_hop_candidates

    # two isolated pairs and a triangle: at most 2 candidates each
    rows, cols = [0, 1, 2, 3, 4, 5, 6], [1, 0, 3, 2, 5, 6, 4]
    G = sparse.csr_matrix((np.ones(7), (rows, cols)), shape=(7, 7))
    cand = two_hop_candidates(G, min_candidates=4, random_state=0)
    for i in range(7):
        c = cand[i][cand[i] >= 0]
        assert len(c) >= 4 and len(set(c.tolist())) == len(c) and i not in c


def test_sparse_dense_matmul_threaded_equals_serial(monkeypatch):
    from threadpoolctl import threadpool_limits

    from ufsel.linalg import _stats, sparse_dense_matmul

    with threadpool_limits(1):  # the thread count follows the BLAS limit
        assert _stats._blas_threads() == 1
    rng = np.random.default_rng(0)
    S = sparse.random(5000, 5000, density=0.002, format="csr", random_state=0)
    X = rng.standard_normal((5000, 30))
    monkeypatch.setattr(_stats, "_THREADED_MIN_WORK", 0)
    monkeypatch.setattr(_stats, "_blas_threads", lambda: 3)
    np.testing.assert_array_equal(sparse_dense_matmul(S, X), S @ X)
    np.testing.assert_array_equal(sparse_dense_matmul(S.tocsc(), X[:, 0]), S @ X[:, 0])
