"""Approximate neighbour backends: faiss HNSW (recall, determinism, warm start), the choice
between HNSW and pynndescent, and pynndescent's one-line compile notice."""

import logging
import sys
import types

import numpy as np
import pytest
from scipy import sparse
from sklearn.datasets import make_blobs
from sklearn.neighbors import NearestNeighbors

from ufsel.graph import _approximate, _knn, knn_graph, resolve_neighbors_algorithm
from ufsel.graph._approximate import approximate_backend
from ufsel.graph._refine import knn_among_candidates, merge_neighbor_lists


def _recall(exact, approx):
    k = exact.shape[1]
    return np.mean([len(set(a) & set(b)) / k for a, b in zip(exact, approx)])


@pytest.fixture
def blobs():
    X, _ = make_blobs(600, n_features=8, centers=4, cluster_std=2.0, random_state=0)
    return X


def test_hnsw_recall_on_20k_by_50():
    pytest.importorskip("faiss")
    # i.i.d. Gaussian: no cluster structure, the hardest case for a graph index
    X = np.random.RandomState(0).standard_normal((20_000, 50))
    _, ie = NearestNeighbors(n_neighbors=10, algorithm="brute").fit(X).kneighbors()
    d, i = knn_graph(X, 10, algorithm="hnsw")
    assert i.shape == ie.shape and not np.any(i == np.arange(len(X))[:, None])
    assert np.all(np.diff(d, axis=1) >= 0)
    assert _recall(ie, i) >= 0.95


def test_hnsw_distances_exact_and_deterministic(blobs):
    pytest.importorskip("faiss")
    d, i = knn_graph(blobs, 6, algorithm="hnsw", n_jobs=1)
    d2, i2 = knn_graph(blobs, 6, algorithm="hnsw", n_jobs=2)
    np.testing.assert_array_equal(i, i2)
    np.testing.assert_array_equal(d, d2)
    true = np.linalg.norm(blobs[i] - blobs[:, None, :], axis=2)
    np.testing.assert_allclose(d, true, rtol=1e-12)  # float64, not faiss's float32
    de, ie = knn_graph(blobs, 6, algorithm="exact")
    assert _recall(ie, i) > 0.99


def test_hnsw_cosine_matches_exact_cosine(blobs):
    pytest.importorskip("faiss")
    X = blobs - blobs.mean(axis=0)
    de, ie = knn_graph(X, 5, metric="cosine", algorithm="exact")
    d, i = knn_graph(X, 5, metric="cosine", algorithm="hnsw")
    assert _recall(ie, i) > 0.98
    both = ie == i
    np.testing.assert_allclose(d[both], de[both], atol=1e-12)


def test_hnsw_warm_start_never_worse_than_candidates(blobs, monkeypatch):
    pytest.importorskip("faiss")
    de, ie = knn_graph(blobs, 5, algorithm="exact")
    # a crippled index (1 link, tiny search lists) misses neighbours; the exact
    # candidates put them back
    monkeypatch.setattr(_approximate, "HNSW_M", 2)
    monkeypatch.setattr(_approximate, "HNSW_EF_SEARCH", 1)
    monkeypatch.setattr(_approximate, "HNSW_EF_CONSTRUCTION", 2)
    d0, i0 = knn_graph(blobs, 5, algorithm="hnsw")
    d, i = knn_graph(blobs, 5, algorithm="hnsw", init_indices=ie)
    np.testing.assert_array_equal(np.sort(i, axis=1), np.sort(ie, axis=1))
    np.testing.assert_allclose(d, de, rtol=1e-12)
    # random candidates (with the row itself and padding among them): each row's k-th
    # distance is at most the fresh search's and at most the candidates' own
    rng = np.random.RandomState(0)
    cand = rng.randint(-1, len(blobs), size=(len(blobs), 8))
    cand[:, 0] = np.arange(len(blobs))
    d1, i1 = knn_graph(blobs, 5, algorithm="hnsw", init_indices=cand)
    assert np.all(d1[:, -1] <= d0[:, -1] + 1e-12)
    dc, _ = knn_among_candidates(blobs, np.where(cand == np.arange(len(blobs))[:, None],
                                                      -1, cand), 5)
    assert np.all(d1[:, -1] <= dc[:, -1] + 1e-12)
    assert all(len(set(r)) == 5 for r in i1) and not np.any(i1 == np.arange(len(blobs))[:, None])
    with pytest.raises(ValueError, match="one row per sample"):
        knn_graph(blobs, 5, algorithm="hnsw", init_indices=ie[:10])


def test_merge_neighbor_lists_keeps_each_index_once():
    a = (np.array([[1.0, 2.0, 5.0]]), np.array([[4, 7, 9]]))
    b = (np.array([[2.0, 3.0, np.inf]]), np.array([[7, 8, -1]]))
    d, i = merge_neighbor_lists(a, b, 4)
    np.testing.assert_array_equal(i, [[4, 7, 8, 9]])
    np.testing.assert_array_equal(d, [[1.0, 2.0, 3.0, 5.0]])


def test_backend_choice(monkeypatch):
    dense, sp = np.zeros((3, 2)), sparse.csr_matrix(np.eye(3))
    have = {"faiss": True, "pynndescent": True}
    monkeypatch.setattr(_approximate, "backend_installed", lambda name: have[name])
    assert approximate_backend(dense) == "hnsw"
    assert approximate_backend(sp) == "nndescent"  # sparse rows as they are
    have["pynndescent"] = False
    assert approximate_backend(sp) == "hnsw"
    have["faiss"], have["pynndescent"] = False, True
    assert approximate_backend(dense) == "nndescent"
    have["pynndescent"] = False
    assert approximate_backend(dense) is None
    big = np.zeros((_knn.APPROX_NEIGHBORS_MIN_SAMPLES, _knn.APPROX_NEIGHBORS_MIN_FEATURES + 1))
    assert resolve_neighbors_algorithm("auto", big) == "exact"
    have["faiss"] = True
    assert resolve_neighbors_algorithm("auto", big) == "approximate"
    assert resolve_neighbors_algorithm("hnsw", dense) == "approximate"


class _FakeNNDescent:
    """Stands in for pynndescent.NNDescent (exact graph, no numba compilation)."""

    def __init__(self, X, n_neighbors, **kwargs):
        nn = NearestNeighbors(n_neighbors=n_neighbors).fit(X)
        dist, ind = nn.kneighbors(X)
        self.neighbor_graph = (ind, dist)


def test_nndescent_notice_once_per_process(blobs, monkeypatch, caplog):
    monkeypatch.setitem(sys.modules, "pynndescent",
                        types.SimpleNamespace(NNDescent=_FakeNNDescent))
    monkeypatch.setattr(_approximate, "_nndescent_notice_shown", False)
    with caplog.at_level(logging.WARNING, logger="ufsel.graph._approximate"):
        d, i = knn_graph(blobs, 5, algorithm="nndescent")
        knn_graph(blobs, 5, algorithm="nndescent")
    notices = [r for r in caplog.records if "pynndescent" in r.getMessage()]
    assert len(notices) == 1 and "40-70 s" in notices[0].getMessage()
    assert "\n" not in notices[0].getMessage()
    _, ie = knn_graph(blobs, 5, algorithm="exact")
    np.testing.assert_array_equal(np.sort(i, axis=1), np.sort(ie, axis=1))


def test_hnsw_search_shows_no_notice(blobs, monkeypatch, caplog):
    pytest.importorskip("faiss")
    monkeypatch.setattr(_approximate, "_nndescent_notice_shown", False)
    with caplog.at_level(logging.WARNING, logger="ufsel.graph._approximate"):
        knn_graph(blobs, 5, algorithm="approximate")
    assert not caplog.records


def test_hnsw_sparse_and_float32_input_equal_dense(blobs):
    pytest.importorskip("faiss")
    d, i = knn_graph(blobs, 5, algorithm="hnsw")
    ds, is_ = knn_graph(sparse.csr_matrix(blobs), 5, algorithm="hnsw")
    np.testing.assert_array_equal(is_, i)
    np.testing.assert_allclose(ds, d, rtol=1e-12)
    d32, i32 = knn_graph(blobs.astype(np.float32), 5, algorithm="hnsw")
    assert d32.dtype == np.float64 and _recall(i, i32) > 0.99
