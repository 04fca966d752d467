import numpy as np
import pytest

from ufsel import MaxVariance
from ufsel.datasets import make_planted
from ufsel.datasets._planted import PLANTED_BLOCK_ROWS, planted_layout, planted_rows


def test_shapes_dtype_and_planted_indices():
    X, y, inf = make_planted(500, 30, 5, random_state=0)
    assert X.shape == (500, 30) and X.dtype == np.float32 and y.shape == (500,)
    assert inf.shape == (5,) and np.all(np.diff(inf) > 0) and inf.max() < 30
    assert set(np.unique(y)) <= set(range(10))
    X64, _, inf64 = make_planted(500, 30, 5, dtype=np.float64, random_state=0)
    assert X64.dtype == np.float64
    np.testing.assert_array_equal(X64, X.astype(np.float64))
    np.testing.assert_array_equal(inf64, inf)


def test_deterministic_and_seed_dependent():
    a = make_planted(300, 20, 4, random_state=3)
    b = make_planted(300, 20, 4, random_state=3)
    c = make_planted(300, 20, 4, random_state=4)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


def test_structure_lives_in_the_planted_features():
    X, y, inf = make_planted(4000, 40, 6, random_state=1)
    noise = np.setdiff1d(np.arange(40), inf)
    # between-cluster share of the variance: large in the planted features, ~0 elsewhere
    means = np.stack([X[y == k].mean(axis=0) for k in np.unique(y)])
    between = means.var(axis=0) / X.var(axis=0)
    assert between[inf].min() > 0.5
    assert between[noise].max() < 0.05
    np.testing.assert_allclose(X[:, noise].std(axis=0), 1.0, atol=0.06)
    top = np.argsort(-MaxVariance().fit(X).scores_)[:6]
    assert set(top) == set(inf)


def test_row_ranges_match_the_whole_array():
    n, d = PLANTED_BLOCK_ROWS + 100, 7
    layout = planted_layout(d, 3, 4, random_state=0)
    X, y = planted_rows(layout, 0, n, d)
    lo, hi = PLANTED_BLOCK_ROWS - 50, PLANTED_BLOCK_ROWS + 30  # across a block boundary
    Xs, ys = planted_rows(layout, lo, hi, d)
    np.testing.assert_array_equal(Xs, X[lo:hi])
    np.testing.assert_array_equal(ys, y[lo:hi])
    Xf, yf, inf = make_planted(n, d, 3, n_clusters=4, random_state=0)
    np.testing.assert_array_equal(Xf, X)
    np.testing.assert_array_equal(inf, layout["informative"])


@pytest.mark.parametrize("kwargs, match", [
    ({"n_informative": 0}, "n_informative"),
    ({"n_informative": 31}, "n_informative"),
    ({"n_clusters": 1}, "n_clusters"),
    ({"n_samples": 0}, "n_samples"),
    ({"dtype": np.int32}, "dtype"),
])
def test_bad_arguments(kwargs, match):
    args = {"n_samples": 10, "n_features": 30, "n_informative": 3, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_planted(**args)
