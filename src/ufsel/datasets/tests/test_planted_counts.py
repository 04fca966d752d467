import tracemalloc

import numpy as np
import pytest
from scipy import sparse

from ufsel.datasets import make_planted_counts
from ufsel.datasets._planted_counts import planted_counts_layout, planted_counts_rows


def test_shape_density_and_markers():
    X, y, markers = make_planted_counts(3000, 400, 20, n_clusters=5, random_state=0)
    assert sparse.isspmatrix_csr(X) and X.shape == (3000, 400) and X.dtype == np.float32
    assert X.has_sorted_indices
    assert y.shape == (3000,) and set(np.unique(y)) == set(range(5))
    assert markers.shape == (20,) and np.all(np.diff(markers) > 0) and markers.max() < 400
    assert X.nnz / (3000 * 400) == pytest.approx(0.03, rel=0.1)
    assert np.all(X.data >= 1) and np.all(X.data == np.round(X.data))
    X2, _, _ = make_planted_counts(3000, 400, 20, n_clusters=5, density=0.1, random_state=0)
    assert X2.nnz / (3000 * 400) == pytest.approx(0.1, rel=0.1)
    X64, y64, _ = make_planted_counts(3000, 400, 20, n_clusters=5, dtype=np.float64,
                                      random_state=0)
    assert X64.dtype == np.float64 and (X64 != X).nnz == 0


def test_deterministic_and_seed_dependent():
    a = make_planted_counts(500, 100, 10, random_state=3)
    b = make_planted_counts(500, 100, 10, random_state=3)
    c = make_planted_counts(500, 100, 10, random_state=4)
    assert (a[0] != b[0]).nnz == 0
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[2], b[2])
    assert (a[0] != c[0]).nnz > 0


def test_markers_are_up_in_their_own_type():
    K = 4
    X, y, markers = make_planted_counts(8000, 200, 12, n_clusters=K, fold_change=6.0,
                                        density=0.1, library_sd=0.0, random_state=1)
    layout = planted_counts_layout(200, 12, K, fold_change=6.0, density=0.1, library_sd=0.0,
                                   random_state=1)
    means = np.stack([np.asarray(X[y == k].mean(axis=0)).ravel() for k in range(K)])
    own = layout["marker_type"]
    # each marker's highest mean is in its own type, about fold_change above the others
    np.testing.assert_array_equal(means[:, markers].argmax(axis=0), own)
    others = np.array([np.delete(means[:, j], t).mean() for j, t in zip(markers, own)])
    ratio = means[own, markers] / others
    assert np.median(ratio) == pytest.approx(6.0, rel=0.3)
    # the other genes have the same mean in every type
    plain = np.setdiff1d(np.arange(200), markers)
    spread = means[:, plain].max(axis=0) / means[:, plain].mean(axis=0)
    assert np.median(spread) < 1.3
    # the expected means are the layout's
    expected = layout["means"].mean(axis=0)
    seen = expected > 0.05  # enough counts for a sample mean within 20 %
    np.testing.assert_allclose(means.mean(axis=0)[seen], expected[seen], rtol=0.2)


def test_row_ranges_match_the_whole_matrix():
    layout = planted_counts_layout(60, 6, 3, random_state=0)
    B = layout["block_rows"]
    n = 2 * B + 17
    X, y = planted_counts_rows(layout, 0, n)
    for lo, hi in ((B - 5, B + 9), (3, 4), (2 * B, n)):
        Xs, ys = planted_counts_rows(layout, lo, hi)
        assert (Xs != X[lo:hi]).nnz == 0
        np.testing.assert_array_equal(ys, y[lo:hi])
        np.testing.assert_array_equal(planted_counts_rows(layout, lo, hi, labels_only=True),
                                      y[lo:hi])
    Xf, yf, markers = make_planted_counts(n, 60, 6, n_clusters=3, random_state=0)
    assert (Xf != X).nnz == 0
    np.testing.assert_array_equal(markers, layout["informative"])


def test_memory_is_bounded_by_the_output():
    make_planted_counts(100, 2000, 20, random_state=0)  # imports, caches
    tracemalloc.start()
    X, _, _ = make_planted_counts(20_000, 2000, 20, random_state=0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    block = 2**22 * 4  # one block's float32 temporaries
    dense = 20_000 * 2000 * 4
    assert peak < 2.5 * out + 4 * block
    assert peak < dense


@pytest.mark.parametrize("kwargs, match", [
    ({"n_samples": 0}, "n_samples"),
    ({"n_markers": 0}, "n_informative"),
    ({"n_clusters": 1}, "n_clusters"),
    ({"density": 1.0}, "density"),
    ({"fold_change": 0.5}, "fold_change"),
    ({"dispersion": 0}, "dispersion"),
    ({"library_sd": -1}, "library_sd"),
    ({"dtype": np.int32}, "dtype"),
])
def test_bad_arguments(kwargs, match):
    args = {"n_samples": 50, "n_features": 30, "n_markers": 6, **kwargs}
    with pytest.raises(ValueError, match=match):
        make_planted_counts(**args)


def test_dask_chunks_give_the_in_memory_rows():
    pytest.importorskip("dask.array")
    import dask

    from ufsel.datasets import make_planted_counts_dask

    X, y, markers = make_planted_counts(2500, 80, 8, n_clusters=4, random_state=2)
    with dask.config.set(scheduler="synchronous"):
        for chunks in (2500, 777):
            Xd, yd, md = make_planted_counts_dask(2500, 80, 8, n_clusters=4, chunks=chunks,
                                                  random_state=2)
            assert Xd.chunks[0][0] == chunks
            got = Xd.compute()
            assert sparse.issparse(got) and (got != X).nnz == 0
            np.testing.assert_array_equal(yd.compute(), y)
            np.testing.assert_array_equal(md, markers)
        Xd, _, _ = make_planted_counts_dask(2500, 80, 8, n_clusters=4, chunks=600,
                                            chunk_format="dense", random_state=2)
        np.testing.assert_array_equal(Xd[600:1300].compute(), X[600:1300].toarray())


def test_dask_sparse_chunks_are_refused_with_the_fix():
    pytest.importorskip("dask.array")
    from ufsel import MaxVariance
    from ufsel.datasets import make_planted_counts_dask

    Xd, _, _ = make_planted_counts_dask(200, 30, 6, chunks=100, random_state=0)
    with pytest.raises(TypeError, match="toarray"):
        MaxVariance().fit(Xd)
