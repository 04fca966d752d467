"""MCFS's LARS through X (push-through, d > n) against the formed Gram matrix."""

import numpy as np

from ufsel.selectors.sparse_regression._mcfs import mcfs_scores
from ufsel.base import ranking_from_scores
from ufsel.linalg import lars_at_cardinalities


def test_lars_through_x_matches_formed_gram():
    rng = np.random.default_rng(0)
    n, d = 30, 200
    X = rng.standard_normal((n, d))
    y = rng.standard_normal(n)
    counts = [5, 40, 150]  # beyond n: only the ridge keeps the active block definite
    ref, ref_entry = lars_at_cardinalities(X.T @ X + 1e-3 * np.eye(d), X.T @ y, n, counts)
    out, entry = lars_at_cardinalities(None, X.T @ y, n, counts, X=X, ridge=1e-3)
    np.testing.assert_allclose(out, ref, rtol=0, atol=1e-9 * np.abs(ref).max())
    np.testing.assert_array_equal(entry, ref_entry)
    np.testing.assert_array_equal(out != 0, ref != 0)


def test_mcfs_scores_wide_dense_equal_sparse_gram_path():
    # dense wide X takes the push-through path; its sparse copy forms the Gram matrix
    from scipy import sparse

    rng = np.random.default_rng(1)
    X = rng.standard_normal((25, 120))
    Y = rng.standard_normal((25, 3))
    counts = [10, 30]  # d = 120 >= K max(counts) = 90: the Gram matrix is not formed
    dense, dense_entry = mcfs_scores(X, Y, counts)
    formed, formed_entry = mcfs_scores(sparse.csr_matrix(X), Y, counts)
    np.testing.assert_allclose(dense, formed, atol=1e-9)
    for a, b in zip(dense, formed):
        np.testing.assert_array_equal(ranking_from_scores(a, dense_entry),
                                      ranking_from_scores(b, formed_entry))


def test_push_through_only_where_forming_the_gram_costs_more(monkeypatch):
    import ufsel.selectors.sparse_regression._mcfs as mcfs_module

    seen = []
    original = mcfs_module.lars_at_cardinalities

    def spy(G, Xy, n, counts, *, X=None, ridge=0.0):
        seen.append(X is not None)
        return original(G, Xy, n, counts, X=X, ridge=ridge)

    monkeypatch.setattr(mcfs_module, "lars_at_cardinalities", spy)
    rng = np.random.default_rng(2)
    X, Y = rng.standard_normal((25, 120)), rng.standard_normal((25, 3))
    mcfs_scores(X, Y, [10, 30])  # 120 >= 3 x 30: through X
    mcfs_scores(X, Y, [10, 60])  # 120 < 3 x 60: the Gram matrix is formed
    mcfs_scores(X[:, :20], Y, [2, 5])  # d < n: formed
    assert seen == [True] * 3 + [False] * 3 + [False] * 3
