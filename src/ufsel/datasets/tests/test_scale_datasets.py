"""The large-data generators: shapes, value ranges, the shift and the sparsity."""

import numpy as np
from scipy import sparse

from ufsel.datasets import make_mnist70k_like, make_sparse_tfidf, shift_images


def test_shift_images_matches_pixelwise_shift():
    rng = np.random.default_rng(0)
    imgs = rng.random((4, 5 * 6))
    shifts = np.array([[0, 0], [1, 0], [0, -2], [-1, 1]])
    out = shift_images(imgs, (5, 6), shifts)
    for img, o, (dy, dx) in zip(imgs.reshape(-1, 5, 6), out.reshape(-1, 5, 6), shifts):
        ref = np.zeros((5, 6))
        for y in range(5):
            for x in range(6):
                if 0 <= y - dy < 5 and 0 <= x - dx < 6:
                    ref[y, x] = img[y - dy, x - dx]
        np.testing.assert_array_equal(o, ref)


def test_mnist70k_like_from_small_base():
    rng = np.random.default_rng(0)
    X0 = rng.integers(0, 256, size=(30, 16)).astype(float)
    y0 = np.arange(30) % 3
    b = make_mnist70k_like(100, base=(X0, y0), max_shift=1, noise=0.05, random_state=0,
                           dtype=np.float32)
    assert b.data.shape == (100, 16) and b.data.dtype == np.float32
    np.testing.assert_array_equal(b.data[:30], X0.astype(np.float32))  # originals kept
    np.testing.assert_array_equal(b.target, y0[b.source_index])
    assert b.data.min() >= 0 and b.data.max() <= 255
    assert np.abs(b.shift).max() <= 1
    # a copy is its source shifted, plus noise of the requested size
    i = 50
    clean = shift_images(X0[b.source_index[i]][None], (4, 4), b.shift[i][None])[0]
    resid = b.data[i] - clean
    inside = (clean > 30) & (clean < 225)  # away from the clipping range
    assert np.std(resid[inside]) < 0.05 * 255 * 2
    b2 = make_mnist70k_like(100, base=(X0, y0), max_shift=1, noise=0.05, random_state=0,
                            dtype=np.float32)
    np.testing.assert_array_equal(b.data, b2.data)


def test_sparse_tfidf_shape_density_norms():
    b = make_sparse_tfidf(500, 2000, density=0.01, n_topics=4, random_state=0)
    X = b.data
    assert sparse.isspmatrix_csr(X) and X.shape == (500, 2000)
    assert 0.5 * 0.01 < X.nnz / (500 * 2000) <= 0.01
    np.testing.assert_allclose(np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel()), 1.0)
    assert X.data.min() > 0
    # topic terms occur mostly in their topic's documents (the last topic's block lies
    # beyond the head of the Zipf background)
    block = 2000 // 8
    Xt = X[:, 3 * block:4 * block].toarray()
    assert (Xt[b.target == 3] > 0).mean() > 5 * (Xt[b.target != 3] > 0).mean()
    np.testing.assert_array_equal(b.informative, np.arange(4 * block))
