"""LGDFS with approximate neighbours: local-join warm starts, and the exact path unchanged."""

import numpy as np
import pytest

from ufsel import LGDFS
from ufsel.datasets import make_planted
from ufsel.graph import knn_graph, refine_neighbors


@pytest.fixture(scope="module")
def planted():
    return make_planted(600, 30, 5, n_clusters=6, dtype=np.float64, random_state=0)


def test_auto_is_the_exact_search_below_the_threshold(planted):
    X = planted[0]
    a = LGDFS(10, n_clusters=6, max_iter=4, random_state=0).fit(X)
    e = LGDFS(10, n_clusters=6, max_iter=4, random_state=0, neighbors_algorithm="exact").fit(X)
    np.testing.assert_array_equal(a.ranking_, e.ranking_)
    np.testing.assert_array_equal(a.objective_, e.objective_)


def test_approximate_finds_the_planted_features(planted, monkeypatch):
    X, _, informative = planted
    calls = []
    import ufsel.selectors.sparse_regression._lgdfs as mod

    real = mod.refine_neighbors
    monkeypatch.setattr(mod, "refine_neighbors",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    sel = LGDFS(5, n_clusters=6, max_iter=5, random_state=0,
                neighbors_algorithm="approximate").fit(X)
    assert len(calls) == sel.n_iter_ - 1  # a search in the first iteration, then warm starts
    exact = LGDFS(5, n_clusters=6, max_iter=5, random_state=0,
                  neighbors_algorithm="exact").fit(X)
    hits = len(set(np.flatnonzero(sel.get_support())) & set(informative))
    assert hits >= 4
    assert hits >= len(set(np.flatnonzero(exact.get_support())) & set(informative))


def test_refine_neighbors_never_farther_and_recovers(planted):
    X = planted[0]
    rng = np.random.default_rng(0)
    _, exact = knn_graph(X, 5, algorithm="exact")
    # start from a corrupted graph: two of the five neighbours of every row replaced at random
    start = exact.copy()
    start[:, 3:] = rng.integers(0, X.shape[0], size=(X.shape[0], 2))
    own = start == np.arange(X.shape[0])[:, None]
    start[own] = (np.nonzero(own)[0] + 1) % X.shape[0]
    d_start = np.linalg.norm(X[start] - X[:, None, :], axis=2).sum(axis=1)
    dist, ind = refine_neighbors(X, start, n_rounds=3)
    assert np.all(dist.sum(axis=1) <= d_start + 1e-9)
    np.testing.assert_allclose(dist, np.linalg.norm(X[ind] - X[:, None, :], axis=2))
    assert np.all(np.diff(dist, axis=1) >= 0)
    assert not np.any(ind == np.arange(X.shape[0])[:, None])
    def recall(lists):
        return np.mean([len(set(a) & set(b)) / 5 for a, b in zip(lists, exact)])

    assert recall(ind) > recall(start) + 0.15


def test_refine_neighbors_keeps_an_exact_graph(planted):
    X = planted[0]
    d0, exact = knn_graph(X, 5, algorithm="exact")
    dist, ind = refine_neighbors(X, exact)
    np.testing.assert_array_equal(ind, exact)
    np.testing.assert_allclose(dist, d0, rtol=1e-10)


def test_bad_neighbors_algorithm(planted):
    with pytest.raises(ValueError, match="neighbors_algorithm"):
        LGDFS(neighbors_algorithm="fast").fit(planted[0])
