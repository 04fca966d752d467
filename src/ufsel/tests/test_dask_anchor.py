"""Graph-based selectors on dask arrays: the anchor graph, linear in n (skipped without dask)."""

import numpy as np
import pytest

from ufsel import LGDFS, MCFS, NDFS, RSFS, SPEC, LaplacianScore, MaxVariance, PivotedQR
from ufsel.graph import anchor_graph, knn_graph

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client


@pytest.fixture(scope="module")
def data():
    from ufsel.datasets import make_planted_dask

    X, _, informative = make_planted_dask(2400, 15, 3, n_clusters=4, chunks=400,
                                          dtype=np.float64, random_state=0)
    return X.compute(), informative


def test_anchor_graph_dask_equals_numpy(client, data):
    X, _ = data
    a = anchor_graph(X, 80, 5, random_state=0, block_size=400)
    b = anchor_graph(da.from_array(X, chunks=(400, 15)), 80, 5, random_state=0)
    assert b.Z is None
    np.testing.assert_array_equal(a.landmarks, b.landmarks)
    for name in ("anchor_degree", "ZtZ", "ZtX", "col_sum", "col_sq"):
        np.testing.assert_allclose(getattr(b, name), getattr(a, name), rtol=1e-10, atol=1e-12)
    C, _ = a.spectral_coefficients(3)
    Yd = b.embed(C)
    assert isinstance(Yd, da.Array) and Yd.chunks[0] == (400,) * 6
    np.testing.assert_allclose(Yd.compute(), a.embed(C), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("cls, params", [
    (LaplacianScore, {"graph": "anchor", "n_anchors": 80, "random_state": 0}),
    (MCFS, {"n_clusters": 4, "graph": "anchor", "n_anchors": 80, "random_state": 0}),
    (SPEC, {"graph": "anchor", "n_anchors": 80, "random_state": 0}),
    (SPEC, {"scoring": "phi3", "n_clusters": 4, "graph": "anchor", "n_anchors": 80,
            "random_state": 0}),
    (PivotedQR, {}),
    (MaxVariance, {}),
])
def test_dask_ranking_equals_in_memory(client, data, cls, params):
    X, informative = data
    mem = cls(3, **params).fit(X)
    lazy = cls(3, **params).fit(da.from_array(X, chunks=(400, 15)))
    np.testing.assert_allclose(lazy.scores_, mem.scores_, rtol=1e-7, atol=1e-10)
    np.testing.assert_array_equal(lazy.ranking_, mem.ranking_)
    if cls is not PivotedQR:  # picks the least explained features, not the clusters
        found = np.intersect1d(np.flatnonzero(lazy.get_support()), informative).size
        assert found >= (2 if cls is MCFS or params.get("scoring") == "phi3" else 3)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", [RSFS, NDFS])
def test_iterative_dask_fit_equals_in_memory(client, data, cls):
    # the anchor graph's Laplacian through Z block by block, the n x c iterates chunked
    # like X and kept on the workers: the in-memory fit's iterations on the same chunks
    X, informative = data
    params = {"n_clusters": 4, "n_anchors": 80, "random_state": 0, "max_iter": 15}
    mem = cls(3, graph="anchor", **params).fit(X)
    lazy = cls(3, **params).fit(da.from_array(X, chunks=(400, 15)))  # "auto": anchor
    assert lazy.n_iter_ == mem.n_iter_
    np.testing.assert_allclose(lazy.objective_, mem.objective_, rtol=1e-9)
    np.testing.assert_allclose(lazy.scores_, mem.scores_, rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(lazy.ranking_, mem.ranking_)
    assert isinstance(lazy.F_, da.Array) and lazy.F_.chunks[0] == (400,) * 6
    np.testing.assert_allclose(lazy.F_.compute(), mem.F_, rtol=1e-7, atol=1e-12)
    with pytest.raises(ValueError, match="needs the data in memory"):
        cls(3, graph="heat" if cls is RSFS else "knn").fit(da.from_array(X, chunks=400))


def test_auto_takes_the_anchor_graph_on_dask_and_knn_is_refused(client, data):
    X, _ = data
    Xd = da.from_array(X, chunks=(400, 15))
    auto = LaplacianScore(3, n_anchors=80, random_state=0).fit(Xd)
    anchor = LaplacianScore(3, graph="anchor", n_anchors=80, random_state=0).fit(Xd)
    np.testing.assert_array_equal(auto.scores_, anchor.scores_)
    with pytest.raises(ValueError, match="graph='knn' needs the data in memory"):
        MCFS(3, graph="knn").fit(Xd)
    with pytest.raises(ValueError, match="anchor graph"):
        knn_graph(Xd, 5)
    with pytest.raises(TypeError, match="does not accept dask arrays. Selectors that do: .*mcfs.*pivotedqr"):
        LGDFS(3).fit(Xd)


def _task_profile(fit, n, chunk=200, d=8):
    """Number of tasks and the largest task result (entries) of ``fit`` on an n-row dask
    array, run on the synchronous scheduler."""
    from dask.callbacks import Callback

    rng = np.random.default_rng(0)
    Xd = da.from_array(rng.standard_normal((n, d)), chunks=(chunk, d))
    seen = {"tasks": 0, "largest": 0}

    def post(key, result, dsk, state, worker_id):
        seen["tasks"] += 1
        size = getattr(result, "size", 0)
        seen["largest"] = max(seen["largest"], size if isinstance(size, int) else 0)

    with dask.config.set(scheduler="sync"), Callback(posttask=post):
        fit(Xd)
    return seen


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("fit", [
    lambda X: LaplacianScore(3, n_anchors=20, random_state=0).fit(X),
    lambda X: MCFS(3, n_clusters=3, n_anchors=20, random_state=0).fit(X),
    lambda X: PivotedQR(3).fit(X),
    lambda X: RSFS(3, n_clusters=3, n_anchors=20, max_iter=3, tol=0.0, random_state=0).fit(X),
    lambda X: NDFS(3, n_clusters=3, n_anchors=20, max_iter=3, tol=0.0, random_state=0).fit(X),
])
def test_no_quadratic_work_on_dask(fit):
    # quadrupling n with the same chunks at most quadruples the tasks (a blockwise
    # pairwise search would multiply them by 16), and no task holds more than a chunk's
    # worth of rows (n x n, or even n x anything, never appears)
    small, big = _task_profile(fit, 1600), _task_profile(fit, 6400)
    assert big["tasks"] <= 4 * small["tasks"] + 20
    assert big["largest"] < 6400 * 8
