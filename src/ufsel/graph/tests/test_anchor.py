"""The anchor graph: its m x m and m x d reductions equal the n x n algebra they replace."""

import numpy as np
import pytest
from scipy import linalg, sparse
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import InvalidParameterError

from ufsel import MCFS, LaplacianScore
from ufsel.graph import ANCHOR_GRAPH_MIN_SAMPLES, anchor_graph, resolve_graph
from ufsel.selectors.filters._laplacian_score import laplacian_score
from ufsel.selectors.sparse_regression._mcfs import mcfs_scores


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 12))
    X[:300, 1] += 4.0
    X[::3, 4] -= 3.0
    return X


def dense_w(g):
    Z = g.Z.toarray()
    return Z @ np.diag(1.0 / g.anchor_degree) @ Z.T


def test_reductions_equal_the_dense_graph(data):
    g = anchor_graph(data, 60, 5, random_state=0)
    assert g.Z.shape == (600, 60) and np.all(np.diff(g.Z.indptr) == 5)
    np.testing.assert_allclose(np.asarray(g.Z.sum(axis=1)).ravel(), 1.0, rtol=1e-12)
    W = dense_w(g)
    np.testing.assert_allclose(W, W.T, atol=1e-14)
    np.testing.assert_allclose(W.sum(axis=1), g.degree, rtol=1e-12)
    L = np.eye(600) - W
    np.testing.assert_allclose(g.laplacian_quadratic(), np.diag(data.T @ L @ data), rtol=1e-9)
    C, lam = g.spectral_coefficients(4)
    Y = g.embed(C)
    np.testing.assert_allclose(Y.T @ Y, np.eye(4), atol=1e-9)
    ev = linalg.eigh(L, eigvals_only=True)
    np.testing.assert_allclose(lam, ev[1:5], atol=1e-9)  # the smallest non-trivial
    np.testing.assert_allclose(L @ Y, Y * lam, atol=1e-8)
    np.testing.assert_allclose(g.transpose_dot_embedding(C), data.T @ Y, rtol=1e-9, atol=1e-12)
    assert abs(Y.sum(axis=0)).max() < 1e-8  # orthogonal to the constant vector


def test_deterministic_and_seeded(data):
    a = anchor_graph(data, 40, 4, random_state=3)
    b = anchor_graph(data, 40, 4, random_state=3)
    c = anchor_graph(data, 40, 4, random_state=4)
    np.testing.assert_array_equal(a.landmarks, b.landmarks)
    np.testing.assert_array_equal(a.ZtX, b.ZtX)
    assert not np.array_equal(a.landmarks, c.landmarks)


def test_random_landmarks_are_rows_and_sparse_equals_dense(data):
    g = anchor_graph(data, 30, 3, init="random", random_state=0)
    assert all(np.any(np.all(data == u, axis=1)) for u in g.landmarks)
    Xs = sparse.csr_matrix(np.where(np.abs(data) > 1.0, data, 0.0))
    gs = anchor_graph(Xs, 30, 3, random_state=1)
    gd = anchor_graph(Xs.toarray(), 30, 3, random_state=1)
    np.testing.assert_allclose(gs.ZtX, gd.ZtX, rtol=1e-10)
    np.testing.assert_allclose(gs.laplacian_quadratic(), gd.laplacian_quadratic(), rtol=1e-9)


def test_block_size_does_not_change_the_result(data):
    a = anchor_graph(data, 50, 5, random_state=0, block_size=97)
    b = anchor_graph(data, 50, 5, random_state=0)
    np.testing.assert_allclose(a.ZtZ, b.ZtZ, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.laplacian_quadratic(), b.laplacian_quadratic(), rtol=1e-10)


def test_far_rows_keep_weights():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((300, 3))
    X[0] = 1e3  # far from every landmark: exp(-d^2 / 2t^2) alone would underflow
    g = anchor_graph(X, 20, 3, sample_size=200, random_state=0)
    assert np.isclose(g.Z[0].sum(), 1.0)


def test_resolve_graph():
    small, big = np.zeros((10, 2)), np.zeros((ANCHOR_GRAPH_MIN_SAMPLES, 1))
    assert resolve_graph("auto", small) == "knn"
    assert resolve_graph("auto", big) == "anchor"
    assert resolve_graph("anchor", small) == "anchor"
    with pytest.raises(ValueError, match="not understood"):
        resolve_graph("full", small)
    # a method's own neighbourhood graphs (RSFS): its first is "auto"'s small-n choice
    own = ("local_kernel", "heat")
    assert resolve_graph("auto", small, neighbor_graphs=own) == "local_kernel"
    assert resolve_graph("heat", small, neighbor_graphs=own) == "heat"
    assert resolve_graph("auto", big, neighbor_graphs=own) == "anchor"
    with pytest.raises(ValueError, match="not understood"):
        resolve_graph("knn", small, neighbor_graphs=own)


def test_laplacian_score_on_anchor_graph_is_the_score_of_w(data):
    sel = LaplacianScore(4, graph="anchor", n_anchors=60, random_state=0).fit(data)
    from sklearn.utils import check_random_state

    g = anchor_graph(data, 60, 5, random_state=check_random_state(0))
    lr = laplacian_score(data, sparse.csr_matrix(dense_w(g)))
    np.testing.assert_allclose(sel.laplacian_scores_, lr, rtol=1e-8)
    assert set(np.flatnonzero(sel.get_support())) >= {1, 4}


def test_mcfs_on_anchor_graph_regresses_its_embedding(data):
    sel = MCFS(3, n_clusters=2, graph="anchor", n_anchors=60, random_state=0).fit(data)
    Y = sel.embedding_
    # each eigenvector's vote weighted by 1 - lambda_k, its Rayleigh quotient on L = I - W
    weights = 1.0 - np.einsum("ik,ik->k", Y, Y - dense_w(anchor_graph(
        data, 60, 5, random_state=check_random_state(0))) @ Y)
    scores, _ = mcfs_scores(data, Y, [3], weights=weights)
    np.testing.assert_allclose(sel.scores_, scores[0], rtol=1e-8, atol=1e-12)
    assert set(np.flatnonzero(sel.get_support())) >= {1, 4}


def test_mcfs_on_anchor_graph_keeps_the_noise_eigenvector_out():
    # 4 separated clusters: 3 cluster eigenvectors, and the 4th (K = n_clusters) in the
    # anchor graph's bulk, whose LARS path on noise features must not outvote the planted
    from ufsel.datasets import make_planted

    X, _, informative = make_planted(6000, 30, 4, n_clusters=4, random_state=0)
    sel = MCFS(4, n_clusters=4, graph="anchor", n_anchors=100, random_state=0).fit(X)
    np.testing.assert_array_equal(np.flatnonzero(sel.get_support()), informative)


@pytest.mark.parametrize("cls", [LaplacianScore, MCFS])
def test_auto_below_threshold_is_knn_and_graph_is_validated(data, cls):
    a = cls(4, random_state=0).fit(data)
    b = cls(4, graph="knn", random_state=0).fit(data)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    with pytest.raises(InvalidParameterError):
        cls(4, graph="full").fit(data)
    with pytest.raises(InvalidParameterError):
        cls(4, n_anchors=1).fit(data)


@pytest.mark.parametrize("scoring, power", [("phi1", 1.0), ("phi2", 1.0), ("phi2", 2.0),
                                            ("phi1", 1.5), ("phi3", 1.0)])
def test_spec_on_anchor_graph_is_spec_of_w(data, scoring, power):
    from ufsel.selectors.filters._spec import spec_scores, spec_scores_anchor

    g = anchor_graph(data, 60, 5, random_state=0)
    W = dense_w(g)
    ref = spec_scores(data, sparse.csr_matrix(W), scoring=scoring, power=power, n_clusters=4,
                      random_state=0)
    got = spec_scores_anchor(g, scoring=scoring, power=power, n_clusters=4)
    np.testing.assert_allclose(got, ref, rtol=1e-7, atol=1e-10)


def test_spec_selector_takes_the_anchor_graph(data):
    from ufsel import SPEC

    sel = SPEC(3, graph="anchor", n_anchors=60, random_state=0).fit(data)
    assert set(np.flatnonzero(sel.get_support())) >= {1, 4}
    a = SPEC(3, random_state=0).fit(data)
    b = SPEC(3, graph="knn", random_state=0).fit(data)
    np.testing.assert_array_equal(a.scores_, b.scores_)


def test_laplacian_operators_apply_i_minus_w(data):
    g = anchor_graph(data, 60, 5, random_state=0)
    W = dense_w(g)
    F = np.random.default_rng(2).random((600, 3))
    L, Ld, Loff = g.laplacian_operators()
    np.testing.assert_allclose(L @ F, F - W @ F, atol=1e-12)
    np.testing.assert_allclose(Ld.diagonal(), 1.0 - np.diag(W), atol=1e-14)
    np.testing.assert_allclose(Loff @ F, (W - np.diag(np.diag(W))) @ F, atol=1e-12)
    np.testing.assert_allclose(L @ F[:, 0], F[:, 0] - W @ F[:, 0], atol=1e-12)


def test_ndfs_on_anchor_graph_decreases_and_finds_the_clusters(data):
    from ufsel import NDFS

    sel = NDFS(3, n_clusters=2, graph="anchor", n_anchors=60, random_state=0).fit(data)
    assert np.all(np.diff(sel.objective_) <= 1e-8 * np.abs(sel.objective_[:-1]))
    assert set(np.flatnonzero(sel.get_support())) >= {1, 4}
    a = NDFS(3, n_clusters=2, random_state=0, max_iter=5, tol=1.0).fit(data)
    b = NDFS(3, n_clusters=2, graph="knn", random_state=0, max_iter=5, tol=1.0).fit(data)
    np.testing.assert_array_equal(a.scores_, b.scores_)


def test_rsfs_on_anchor_graph_finds_the_clusters(data):
    from ufsel import RSFS

    sel = RSFS(3, n_clusters=2, graph="anchor", n_anchors=60, random_state=0).fit(data)
    assert np.all(np.isfinite(sel.objective_))
    assert set(np.flatnonzero(sel.get_support())) >= {1, 4}


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_rsfs_auto_takes_the_papers_graph_below_the_threshold_and_the_anchor_graph_above(
        data, monkeypatch):
    from ufsel import RSFS
    from ufsel.graph import _anchor

    params = {"n_clusters": 2, "n_anchors": 60, "random_state": 0, "max_iter": 5, "tol": 0.0}
    auto = RSFS(3, **params).fit(data)
    paper = RSFS(3, graph="local_kernel", **params).fit(data)
    np.testing.assert_array_equal(auto.scores_, paper.scores_)
    monkeypatch.setattr(_anchor, "ANCHOR_GRAPH_MIN_SAMPLES", data.shape[0])
    auto = RSFS(3, **params).fit(data)
    anchor = RSFS(3, graph="anchor", **params).fit(data)
    np.testing.assert_array_equal(auto.scores_, anchor.scores_)
    assert not np.array_equal(auto.scores_, paper.scores_)


def test_auto_keeps_the_knn_graph_for_sparse_data():
    big = sparse.random(ANCHOR_GRAPH_MIN_SAMPLES, 3, density=0.1, format="csr", random_state=0)
    assert resolve_graph("auto", big) == "knn"
    assert resolve_graph("anchor", big) == "anchor"


def test_sparse_x_stays_sparse_and_gives_the_dense_graph():
    from ufsel.datasets import make_planted_counts

    X, _, _ = make_planted_counts(600, 80, 8, n_clusters=3, density=0.1, random_state=0)
    X = sparse.csr_matrix(X, dtype=np.float64)
    for init in ("random", "kmeans"):
        gs = anchor_graph(X, 40, 5, init=init, random_state=0)
        gd = anchor_graph(X.toarray(), 40, 5, init=init, random_state=0)
        if init == "random":  # the same sampled rows: the same graph
            np.testing.assert_allclose(gs.Z.toarray(), gd.Z.toarray(), atol=1e-10)
            np.testing.assert_allclose(gs.laplacian_quadratic(), gd.laplacian_quadratic(),
                                       rtol=1e-8)
        assert gs.Z.shape == (600, 40) and gs.landmarks.shape == (40, 80)
