"""Dask arrays on a LocalCluster give the in-memory results (skipped without dask)."""

import numpy as np
import pytest

from ufsel import MCFS, SPCAFS, BaseSelector, LaplacianScore, MaxVariance
from ufsel.linalg import column_mean_var, gram_matrix, graph_quadratic, scatter_matrix

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client(dask_client):
    return dask_client


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((500, 10))
    X[:250, 2] += 4.0  # a cluster feature
    X[:, 5] *= 3.0
    X[rng.random(500) < 0.5, 7] = 1.0  # ties in one feature
    return X


def chunked(X, rows=97):
    return da.from_array(X, chunks=(rows, X.shape[1]))


def test_blocks_match_in_memory(client, data):
    Xd = chunked(data)
    m0, v0 = column_mean_var(data)
    m1, v1 = column_mean_var(Xd)
    np.testing.assert_allclose(m1, m0, atol=1e-12)
    np.testing.assert_allclose(v1, v0, rtol=1e-10)
    np.testing.assert_allclose(gram_matrix(Xd), gram_matrix(data), rtol=1e-12)
    np.testing.assert_allclose(scatter_matrix(Xd), scatter_matrix(data), atol=1e-9)
    from ufsel.graph import knn_affinity

    W = knn_affinity(data, 5)
    np.testing.assert_allclose(graph_quadratic(Xd, W), graph_quadratic(data, W), rtol=1e-10)


@pytest.mark.parametrize("cls, params", [
    (MaxVariance, {}),
    (LaplacianScore, {"n_neighbors": 5, "graph": "anchor", "n_anchors": 50, "random_state": 0}),
    (MCFS, {"n_neighbors": 5, "n_clusters": 3, "graph": "anchor", "n_anchors": 50,
            "random_state": 0}),
    (SPCAFS, {"n_components": 3, "gamma": 10.0}),
])
def test_selectors_match_in_memory(client, data, cls, params):
    mem = cls(4, **params).fit(data)
    lazy = cls(4, **params).fit(chunked(data))
    np.testing.assert_allclose(lazy.scores_, mem.scores_, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(lazy.ranking_, mem.ranking_)
    out = lazy.transform(chunked(data))
    assert isinstance(out, da.Array)
    np.testing.assert_array_equal(out.compute(), mem.transform(data))


def test_float32_dask_kept(client, data):
    Xd = chunked(data.astype(np.float32))
    sel = MaxVariance(3).fit(Xd)
    np.testing.assert_allclose(sel.scores_, np.var(data.astype(np.float32), axis=0), rtol=1e-5)


def test_dask_validation(client, data):
    bad = data.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN or infinity"):
        MaxVariance(2).fit(chunked(bad))
    sel = MaxVariance(2).fit(chunked(data))
    with pytest.raises(ValueError, match="expecting 10 features"):
        sel.transform(chunked(data[:, :4]))
    with pytest.raises(ValueError, match="minimum of 2"):
        MaxVariance(1).fit(chunked(data[:1]))

    class NoDask(BaseSelector):
        def _fit(self, X):  # pragma: no cover - never reached
            return np.zeros(X.shape[1])

    with pytest.raises(TypeError, match="does not accept dask arrays"):
        NoDask(1).fit(chunked(data))
