"""Tests of the weighted ridge / push-through step, local Gram stacks and warm eigensolves."""

import numpy as np
from scipy import linalg, sparse

from ufsel.linalg import (
    RidgeFactor,
    local_gram,
    ridge_hat_complement,
    scaled_indicator,
    warm_smallest_eigvecs,
    weighted_ridge,
)


def test_weighted_ridge_push_through_equals_primal():
    rng = np.random.RandomState(1)
    for n, d in ((40, 10), (15, 60)):
        X = rng.randn(n, d)
        F = np.abs(rng.randn(n, 3))
        g = rng.uniform(0.5, 2.0, d)
        direct = np.linalg.solve(X.T @ X + np.diag(g), X.T @ F)
        for method in ("primal", "push_through"):
            np.testing.assert_allclose(weighted_ridge(X, F, g, method=method), direct,
                                       rtol=1e-8, atol=1e-10)
        w = rng.uniform(0.1, 1.0, n)
        direct_w = np.linalg.solve(X.T @ (w[:, None] * X) + np.diag(g), X.T @ (w[:, None] * F))
        for method in ("primal", "push_through"):
            np.testing.assert_allclose(weighted_ridge(X, F, g, sample_weight=w, method=method),
                                       direct_w, rtol=1e-8, atol=1e-10)
        hat_c = ridge_hat_complement(X, g)
        explicit = np.eye(n) - X @ np.linalg.solve(X.T @ X + np.diag(g), X.T)
        np.testing.assert_allclose(hat_c(np.eye(n)), explicit, atol=1e-10)
        np.testing.assert_allclose(weighted_ridge(sparse.csr_matrix(X), F, g), direct,
                                   rtol=1e-8, atol=1e-10)


def test_local_gram_and_warm_eigvecs():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 5)
    idx = rng.randint(0, 30, (12, 4))
    G = local_gram(X, idx)
    for i in range(12):
        np.testing.assert_allclose(G[i], X[idx[i]] @ X[idx[i]].T)
    np.testing.assert_allclose(local_gram(sparse.csr_matrix(X), idx), G)
    A = rng.randn(60, 60)
    A = A @ A.T
    Y0 = linalg.qr(rng.randn(60, 3), mode="economic")[0]
    Y = warm_smallest_eigvecs(A, Y0, maxiter=500, tol=1e-10)
    assert np.trace(Y.T @ A @ Y) <= np.trace(Y0.T @ A @ Y0)
    np.testing.assert_allclose(np.sort(linalg.eigvalsh(Y.T @ A @ Y)), linalg.eigvalsh(A)[:3],
                               rtol=1e-6)


def test_ridge_factor_and_scaled_indicator():
    rng = np.random.RandomState(2)
    X = rng.randn(30, 8)
    g = rng.uniform(0.5, 2.0, 8)
    R = rng.randn(30, 2)
    fac = RidgeFactor(X, g)
    np.testing.assert_allclose(fac.solve(R), weighted_ridge(X, R, g), rtol=1e-10)
    F = scaled_indicator(np.array([0, 0, 1, 2, 2, 2]), 4, offset=0.0)
    np.testing.assert_allclose(F.T @ F, np.diag([1.0, 1.0, 1.0, 0.0]), atol=1e-12)
    assert np.all(scaled_indicator(np.array([0, 1, 1]), 2) > 0)


def test_ridge_factor_mean_centres_implicitly():
    """``mean=mu``: sparse X acts as ``X - 1 mu^T`` in both the d x d and the n x n form."""
    rng = np.random.RandomState(3)
    for n, d in ((40, 10), (15, 60)):
        Xd = sparse.random(n, d, density=0.3, random_state=rng).toarray() + 0.0
        mu = Xd.mean(axis=0)
        Xc = Xd - mu
        g = rng.uniform(0.5, 2.0, d)
        R, V = rng.randn(n, 3), rng.randn(n, 2)
        ref = RidgeFactor(Xc, g)
        for X in (sparse.csr_matrix(Xd), Xd):
            fac = RidgeFactor(X, g, mean=mu)
            assert fac.primal == (d <= n)
            np.testing.assert_allclose(fac.solve(R), ref.solve(R), rtol=1e-9, atol=1e-11)
            np.testing.assert_allclose(fac.hat_complement(V), ref.hat_complement(V),
                                       rtol=1e-9, atol=1e-11)
            np.testing.assert_allclose(fac.solve(R[:, 0]), ref.solve(R[:, 0]), rtol=1e-9,
                                       atol=1e-11)


def test_local_gram_sparse_in_chunks(monkeypatch):
    """The sparse path (row products, never densified) equals the dense one, in chunks too."""
    from ufsel.linalg import _local

    X = sparse.random(50, 300, density=0.05, random_state=0, format="csc")
    idx = np.random.RandomState(0).randint(0, 50, (50, 6))
    G = local_gram(X.toarray(), idx)
    np.testing.assert_allclose(local_gram(X, idx), G, atol=1e-14)
    monkeypatch.setattr(_local, "_CHUNK_BYTES", 1000)  # one group per chunk
    np.testing.assert_allclose(local_gram(X, idx), G, atol=1e-14)


def test_weighted_push_through_with_widely_spread_sample_weights():
    # RUFS's weights 1 / (2 ||r_i||) span many orders of magnitude; the push-through
    # form puts their inverses on the diagonal and must stay as accurate as the primal.
    rng = np.random.RandomState(7)
    n, d = 30, 80
    X = rng.randn(n, d)
    F = np.abs(rng.randn(n, 4))
    g = rng.uniform(0.5, 2.0, d)
    w = 10.0 ** rng.uniform(-6, 6, n)
    direct = np.linalg.solve(X.T @ (w[:, None] * X) + np.diag(g), X.T @ (w[:, None] * F))
    got = weighted_ridge(X, F, g, sample_weight=w, method="push_through")
    np.testing.assert_allclose(got, direct, rtol=1e-7, atol=1e-9)
    got_sparse = weighted_ridge(sparse.csr_matrix(X), F, g, sample_weight=w, method="push_through")
    np.testing.assert_allclose(got_sparse, direct, rtol=1e-7, atol=1e-9)


def _kmeans_labels(Z, c, seed, init):
    from sklearn.cluster import KMeans

    return KMeans(c, init=init, n_init=10, random_state=np.random.RandomState(seed)).fit(Z).labels_


def test_kmeans_indicator_on_the_gram_factor_equals_kmeans_on_the_data():
    from ufsel.linalg import kmeans_indicator

    rng = np.random.RandomState(3)
    n, d, c = 60, 150, 4
    centres = 3.0 * rng.randn(c, d)
    Z = centres[rng.randint(c, size=n)] + rng.randn(n, d)
    for seed in (0, 1):
        for init in ("random", "k-means++"):
            F = kmeans_indicator(Z, c, random_state=np.random.RandomState(seed), init=init,
                                 offset=0.0)
            np.testing.assert_array_equal(F.argmax(axis=1), _kmeans_labels(Z, c, seed, init))
    # duplicate rows: a singular Gram matrix, clustered through the QR factor instead
    Zd = np.vstack([Z, Z[:10]])
    F = kmeans_indicator(Zd, c, random_state=np.random.RandomState(0), init="random", offset=0.0)
    np.testing.assert_array_equal(F.argmax(axis=1), _kmeans_labels(Zd, c, 0, "random"))
