"""Local-learning graph blocks: weighted k-NN, local kernel regression, discriminative Laplacians."""

import numpy as np
import pytest
from scipy import sparse

from ufsel.graph import (
    global_discriminative_laplacian,
    local_discriminative_laplacian,
    local_kernel_regression_weights,
    local_learning_laplacian,
    weighted_knn_graph,
)
from ufsel.selectors.tests import test_lgdfs as _lgdfs_tests
from ufsel.selectors.tests.test_lgdfs import _dense_Lg, _dense_Ll

small = _lgdfs_tests.small  # the shared 30-sample fixture


@pytest.mark.parametrize("method", ["woodbury", "direct"])
def test_global_laplacian_woodbury_equals_dense_formula(small, method):
    X, z, _ = small
    for lam in (0.1, 2.0):
        op = global_discriminative_laplacian(X, z, lam, method=method)
        np.testing.assert_allclose(op @ np.eye(30), _dense_Lg(X, z, lam), atol=1e-10)
    # d > n: the n x n system is the smaller one ("auto" picks it)
    rng = np.random.RandomState(1)
    Xw, zw = rng.standard_normal((12, 40)), rng.dirichlet(np.ones(40))
    op = global_discriminative_laplacian(Xw, zw, 0.5, method=method)
    np.testing.assert_allclose(op @ np.eye(12), _dense_Lg(Xw, zw, 0.5), atol=1e-10)


def test_local_laplacian_batched_equals_per_point_loop(small):
    X, z, regions = small
    L = local_discriminative_laplacian(X * np.sqrt(z), regions, 0.3)
    assert sparse.issparse(L)
    np.testing.assert_allclose(L.toarray(), _dense_Ll(X, z, regions, 0.3), atol=1e-12)
    np.testing.assert_allclose(L @ np.ones(30), 0.0, atol=1e-12)


def test_weighted_knn_uses_weighted_distance():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((25, 3))
    z = np.array([0.7, 0.3, 0.0])
    dist, ind = weighted_knn_graph(X, 3, z)
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2 * z).sum(-1))
    np.fill_diagonal(D, np.inf)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :3], atol=1e-12)
    Xc = X.copy()
    weighted_knn_graph(X, 3, z)
    np.testing.assert_array_equal(X, Xc)


def test_local_kernel_graph_properties():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((40, 5))
    S = local_kernel_regression_weights(X, 5)
    assert sparse.issparse(S) and S.nnz == 40 * 5
    np.testing.assert_allclose(np.asarray(S.sum(axis=1)).ravel(), 1.0)
    assert np.all(S.diagonal() == 0)
    M = local_learning_laplacian(S)
    B = np.diag(np.asarray((S + S.T).sum(axis=1)).ravel())
    np.testing.assert_allclose(M.toarray(), B - S.toarray() - S.T.toarray(), atol=1e-14)
    assert np.linalg.eigvalsh(M.toarray()).min() > -1e-10
    Sh = local_kernel_regression_weights(X, 5, symmetrize_mode="max")
    np.testing.assert_allclose(np.asarray(Sh.sum(axis=1)).ravel(), 1.0)
