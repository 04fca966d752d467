import numpy as np
import pytest
from scipy import linalg, sparse
from scipy.sparse.csgraph import connected_components

from ufsel.graph import (
    graph_laplacian,
    heat_kernel_bandwidth,
    knn_affinity,
    knn_graph,
    spectral_embedding,
)


def test_knn_graph_excludes_self_even_with_duplicates():
    X = np.array([[0.0], [0.0], [0.0], [5.0], [6.0]])
    dist, ind = knn_graph(X, 2)
    for i in range(5):
        assert i not in ind[i]
    assert np.all(dist[:3, 0] == 0)  # duplicates are each other's neighbours


@pytest.mark.parametrize("weight", ["binary", "heat", "cosine"])
@pytest.mark.parametrize("how", ["max", "mean", "min"])
def test_knn_affinity_sparse_symmetric_no_selfloops(weight, how):
    rng = np.random.RandomState(0)
    X = rng.rand(50, 4) + 0.1
    X0 = X.copy()
    W = knn_affinity(X, 5, weight=weight, symmetrize_mode=how, random_state=0)
    assert sparse.isspmatrix_csr(W) or isinstance(W, sparse.csr_array)
    assert abs(W - W.T).max() < 1e-12
    assert W.diagonal().sum() == 0
    assert W.data.min() >= 0
    np.testing.assert_array_equal(X, X0)  # never modified (cosine normalises a copy)
    nnz_row = W.getnnz(axis=1)
    if how == "max":
        assert nnz_row.min() >= 5
    if how == "min":
        assert nnz_row.max() <= 5


def test_heat_weights_match_formula():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 3)
    W = knn_affinity(X, 4, weight="heat", t=1.7, symmetrize_mode="none")
    dist, ind = knn_graph(X, 4)
    i = 7
    for j, dij in zip(ind[i], dist[i]):
        assert W[i, j] == pytest.approx(np.exp(-dij**2 / (2 * 1.7**2)))


def test_bandwidth_is_cai_mean_distance():
    X = np.array([[0.0, 0.0], [3.0, 4.0]])
    # EuDist2 matrix [[0, 5], [5, 0]] -> mean 2.5 (diagonal included)
    assert heat_kernel_bandwidth(X) == pytest.approx(2.5)


@pytest.mark.parametrize("t", ["mean", "median"])
def test_heat_affinity_from_shared_distances_equals_separate_search(t):
    # d > 15 and n <= 3000: the bandwidth and the neighbours come from one distance
    # matrix. Without ties, the graph must be the one built from knn_graph's search
    # (scikit-learn) and heat_kernel_bandwidth.
    rng = np.random.RandomState(3)
    X = rng.randn(120, 40)
    dist, ind = knn_graph(X, 6)
    bw = heat_kernel_bandwidth(X, t)
    expected = sparse.csr_matrix(
        (np.exp(-dist.ravel() ** 2 / (2 * bw**2)), (np.repeat(np.arange(120), 6), ind.ravel())),
        shape=(120, 120))
    W = knn_affinity(X, 6, weight="heat", t=t, symmetrize_mode="none")
    W.sort_indices()
    expected.sort_indices()
    np.testing.assert_array_equal(W.indices, expected.indices)
    np.testing.assert_array_equal(W.indptr, expected.indptr)
    np.testing.assert_allclose(W.data, expected.data, rtol=1e-12)


def test_knn_from_distances_ties_go_to_the_smaller_index():
    # Small integers: every distance is computed exactly, so the ties are real.
    # Rows 2, 5 and 7 are copies of row 0; each keeps its copies (never itself), and
    # point 9, equidistant from all four copies, keeps the two of smallest index.
    X = np.zeros((12, 20))
    X[1, 0] = 3.0
    X[3, 1] = 4.0
    X[4, 2] = 6.0
    X[6, 3] = 7.0
    X[8, 4] = 8.0
    X[9, 5] = 2.0
    X[10, 6] = 9.0
    X[11, 7] = 10.0
    W = knn_affinity(X, 2, weight="heat", symmetrize_mode="none")
    assert W.diagonal().sum() == 0
    assert set(W[0].indices) == {2, 5}
    assert set(W[2].indices) == {0, 5}
    assert set(W[7].indices) == {0, 2}
    assert set(W[9].indices) == {0, 2}
    # All 20 points pairwise equidistant (unit vectors, exact distances sqrt(2)): each
    # row keeps the 5 smallest other indices (argpartition alone keeps others on some rows)
    E = np.eye(20, 30)
    WE = knn_affinity(E, 5, weight="heat", symmetrize_mode="none")
    for i in range(20):
        assert sorted(WE[i].indices) == [j for j in range(20) if j != i][:5]
    # weights: the heat kernel of the neighbours' distances, Cai's mean-distance bandwidth
    dist, _ = knn_graph(X, 2)
    np.testing.assert_allclose(np.sort(W[9].data), np.sort(
        np.exp(-dist[9] ** 2 / (2 * heat_kernel_bandwidth(X) ** 2))))



def _stable_knn(X, k):
    """Reference: exact squared distances from differences, self excluded, then a stable
    sort (ties to the smaller index)."""
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(D, np.inf)
    return np.argsort(D, axis=1, kind="stable")[:, :k]


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree", "ball_tree", "exact"])
@pytest.mark.parametrize("layout", ["dense", "sparse"])
def test_knn_graph_ties_go_to_the_smaller_index_on_every_exact_search(algorithm, layout):
    # Small integers (exact distances) on a coarse grid: most rows have several points
    # at their k-th distance. scikit-learn's searches keep some of them in an order set
    # by the search; knn_graph keeps those of smaller index, as the stable sort does.
    if layout == "sparse" and algorithm in ("kd_tree", "ball_tree"):
        pytest.skip("the trees need dense input")
    rng = np.random.RandomState(0)
    X = rng.randint(0, 3, size=(150, 3)).astype(float)
    k = 5
    Xin = sparse.csr_matrix(X) if layout == "sparse" else X
    dist, ind = knn_graph(Xin, k, algorithm=algorithm)
    expected = _stable_knn(X, k)
    np.testing.assert_array_equal(np.sort(ind, axis=1), np.sort(expected, axis=1))
    # rows ordered by (distance, index)
    for i in range(X.shape[0]):
        assert list(zip(dist[i], ind[i])) == sorted(zip(dist[i], ind[i]))


def test_knn_affinity_on_tied_data_does_not_depend_on_the_thread_count():
    from threadpoolctl import threadpool_limits

    rng = np.random.RandomState(1)
    X = rng.randint(0, 4, size=(400, 20)).astype(float)  # brute force (d > 15), many ties
    graphs = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            graphs.append(knn_affinity(X, 5, weight="binary", symmetrize_mode="max"))
    assert (graphs[0] != graphs[1]).nnz == 0
    rows = np.repeat(np.arange(400), 5)
    expected = sparse.csr_matrix((np.ones(2000), (rows, _stable_knn(X, 5).ravel())),
                                 shape=(400, 400))
    expected = expected.maximum(expected.T)
    assert (graphs[0] != expected).nnz == 0

def _dense_generalized(W, k):
    Wd = W.toarray()
    D = np.diag(Wd.sum(1))
    w, V = linalg.eigh(D - Wd, D)
    return w[: k + 1], V[:, : k + 1]


@pytest.mark.parametrize("solver", ["dense", "arpack"])
def test_spectral_embedding_matches_dense_generalized_eigh(solver):
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(40, 2) + c for c in ([0, 0], [4, 0], [0, 4])])
    W = knn_affinity(X, 8, weight="heat", random_state=0)
    assert connected_components(W)[0] == 1
    Y, lam = spectral_embedding(W, 3, eigen_solver=solver, random_state=0, return_eigenvalues=True)
    w_ref, V_ref = _dense_generalized(W, 3)
    np.testing.assert_allclose(lam, w_ref[1:], atol=1e-8)
    D = np.asarray(W.sum(1)).ravel()
    L = graph_laplacian(W)
    np.testing.assert_allclose(L @ Y, (D[:, None] * Y) * lam, atol=1e-7)
    np.testing.assert_allclose(Y.T @ (D[:, None] * Y), np.eye(3), atol=1e-8)
    # same subspace as the reference: principal angles all zero (D inner product)
    Vr = V_ref[:, 1:]
    Vr = Vr / np.sqrt(np.einsum("ij,i,ij->j", Vr, D, Vr))
    s = np.linalg.svd(Vr.T @ (D[:, None] * Y), compute_uv=False)
    np.testing.assert_allclose(s, 1.0, atol=1e-6)


def test_spectral_embedding_disconnected_drops_only_constant_direction():
    # two components: the lambda=0 eigenspace is 2-dimensional; the embedding keeps the
    # component indicator (orthogonal to the constant vector in the D inner product)
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(20, 2), rng.randn(20, 2) + 100])
    W = knn_affinity(X, 3, weight="binary")
    Y, lam = spectral_embedding(W, 2, return_eigenvalues=True)
    D = np.asarray(W.sum(1)).ravel()
    assert lam[0] == pytest.approx(0.0, abs=1e-10)
    assert abs(D @ Y[:, 0]) < 1e-8  # D-orthogonal to the constant vector
    first = Y[:20, 0]
    second = Y[20:, 0]
    assert np.ptp(first) < 1e-8 and np.ptp(second) < 1e-8 and np.sign(first[0]) != np.sign(second[0])


def test_spectral_embedding_deterministic_and_validates():
    rng = np.random.RandomState(0)
    X = rng.randn(60, 3)
    W = knn_affinity(X, 5)
    a = spectral_embedding(W, 2, eigen_solver="arpack", random_state=1)
    b = spectral_embedding(W, 2, eigen_solver="arpack", random_state=1)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="symmetric"):
        spectral_embedding(sparse.csr_matrix(np.triu(np.ones((4, 4)), 1)), 1)
    with pytest.raises(ValueError, match="n_components"):
        spectral_embedding(W, 60)


@pytest.mark.parametrize("kind", ["gaussian", "rounded", "near_coincident"])
def test_gram_search_gives_the_same_exact_neighbours_as_scikit_learns(kind, monkeypatch):
    # nearest_by_exact_distance's result is a function of the points (distances from
    # differences, ties to the smaller index) whatever search proposes the candidates:
    # NumPy's Gram search (small n) and scikit-learn's brute force must agree exactly
    from ufsel.graph import _adaptive

    rng = np.random.RandomState({"gaussian": 0, "rounded": 1, "near_coincident": 2}[kind])
    for _ in range(20):
        n, p = rng.randint(20, 200), rng.randint(1, 8)
        Z = rng.randn(n, p)
        if kind == "rounded":
            Z = np.round(Z, 1)  # many exactly equal distances
        elif kind == "near_coincident":
            Z[: n // 3] = Z[0] + 1e-13 * rng.randn(n // 3, p)  # rounding decides the search
        k = rng.randint(1, 20)
        monkeypatch.setattr(_adaptive, "_GRAM_SEARCH_MAX", 10**9)
        d2_gram, ind_gram = _adaptive.nearest_by_exact_distance(Z, k, algorithm="brute")
        monkeypatch.setattr(_adaptive, "_GRAM_SEARCH_MAX", 0)
        d2_skl, ind_skl = _adaptive.nearest_by_exact_distance(Z, k, algorithm="brute")
        np.testing.assert_array_equal(ind_gram, ind_skl)
        np.testing.assert_array_equal(d2_gram, d2_skl)


def test_exact_distances_do_not_depend_on_the_block_size(monkeypatch):
    # exact_sq_distances forms its differences in blocks of DIFF_BLOCK numbers; each
    # pair's value is computed the same way whatever the block (padding -1 gives inf).
    from ufsel.graph import _refine

    rng = np.random.default_rng(1)
    for n, d, m in ((213, 300, 18), (40, 2000, 10), (300, 3, 299)):
        Z = rng.standard_normal((n, d)) * rng.uniform(0.1, 100.0)
        ind = rng.integers(-1, n, (n, m))
        results = []
        for block in (2**24, 2**18, 2**12, 1):
            monkeypatch.setattr(_refine, "DIFF_BLOCK", block)
            results.append(_refine.exact_sq_distances(Z, ind))
        for r in results[1:]:
            np.testing.assert_array_equal(r, results[0])
        assert np.all(np.isinf(results[0][ind < 0]))
        i, j = np.nonzero(ind >= 0)
        np.testing.assert_allclose(results[0][i, j],
                                   ((Z[i] - Z[ind[i, j]]) ** 2).sum(axis=1), rtol=1e-12)


def test_tied_rows_are_searched_again_in_blocks(monkeypatch):
    # many tied rows: the full-row search runs in blocks (bounded memory) and gives the
    # same neighbours as in one block
    from ufsel.graph import _knn

    rng = np.random.RandomState(2)
    X = rng.randint(0, 2, size=(300, 4)).astype(float)
    whole = knn_graph(X, 5, algorithm="brute")
    calls = []
    real = _knn.pairwise_distances

    def spy(A, B, **kw):
        calls.append(A.shape[0])
        return real(A, B, **kw)

    monkeypatch.setattr(_knn, "pairwise_distances", spy)
    monkeypatch.setattr(_knn, "_TIE_BLOCK_ELEMENTS", 300 * 7)
    blocked = knn_graph(X, 5, algorithm="brute")
    assert len(calls) > 1 and max(calls) <= 7
    np.testing.assert_array_equal(blocked[1], whole[1])
    np.testing.assert_array_equal(blocked[0], whole[0])


def test_reuse_neighbor_searches_gives_the_same_graphs(monkeypatch):
    from ufsel.graph import _knn, knn_graph, reuse_neighbor_searches

    rng = np.random.RandomState(0)
    X = np.round(rng.rand(120, 6), 1)  # rounded: many tied distances
    fresh = {k: knn_graph(X, k) for k in (10, 5)}
    searches = []
    real = _knn.NearestNeighbors
    monkeypatch.setattr(_knn, "NearestNeighbors",
                        lambda *a, **kw: searches.append(kw) or real(*a, **kw))
    with reuse_neighbor_searches():
        first = {k: knn_graph(X, k) for k in (10, 5)}
        first[5][0][:] = -1.0  # a caller's change does not reach the kept search
        again = knn_graph(np.asfortranarray(X).copy(order="C"), 5)  # same content
        # the exact search does not depend on the seed: a selector's generator is no obstacle
        seeded = knn_graph(X, 5, random_state=np.random.RandomState(1))
        other = X.copy()
        other[0, 0] += 0.5  # other data: searched anew
        changed = knn_graph(other, 5)
    assert np.array_equal(seeded[1], fresh[5][1])
    assert len(searches) == 3  # 10, 5 and the changed data; the others came from the scope
    assert np.array_equal(first[10][1], fresh[10][1])
    assert np.array_equal(again[1], fresh[5][1]) and np.array_equal(again[0], fresh[5][0])
    assert not np.array_equal(changed[1], fresh[5][1])
    assert np.array_equal(changed[1], knn_graph(other, 5)[1])
