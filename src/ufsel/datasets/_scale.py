"""Generators of large data sets for the scale benchmarks and acceptance runs."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.utils import Bunch, check_random_state

__all__ = ["make_mnist70k_like", "make_sparse_tfidf", "shift_images"]


def shift_images(images, shape, shifts):
    """Translate flattened images by whole pixels, filling the uncovered border with 0.

    Parameters
    ----------
    images : ndarray of shape (n, h * w), row-major (C-order) images
    shape : (h, w)
    shifts : ndarray of shape (n, 2), int
        Per-image (down, right) shift in pixels (negative: up / left).

    Returns
    -------
    shifted : ndarray of shape (n, h * w), a new array of images' dtype
    """
    h, w = shape
    imgs = images.reshape(-1, h, w)
    out = np.zeros_like(imgs)
    # one vectorised copy per distinct shift, never a loop over samples
    pairs, inverse = np.unique(shifts, axis=0, return_inverse=True)
    for g, (dy, dx) in enumerate(pairs):
        sel = np.flatnonzero(inverse.ravel() == g)
        src_y = slice(max(0, -dy), h - max(0, dy))
        dst_y = slice(max(0, dy), h - max(0, -dy))
        src_x = slice(max(0, -dx), w - max(0, dx))
        dst_x = slice(max(0, dx), w - max(0, -dx))
        out[sel, dst_y, dst_x] = imgs[sel, src_y, src_x]
    return out.reshape(images.shape)


def make_mnist70k_like(n_samples=70_000, *, base=None, max_shift=2, noise=0.1,
                       dtype=np.float64, random_state=None, data_dir=None):
    """An MNIST-like set of ``n_samples`` 28 x 28 digits built from ``mnist10k``.

    The 10,000 MNIST test digits are kept as they are; every further sample is
    a copy of a random one of them, translated by a random whole-pixel shift
    in ``[-max_shift, max_shift]`` in each direction (border filled with 0)
    plus Gaussian pixel noise of standard deviation ``noise * 255``, clipped to
    the pixel range [0, 255]. Labels are those of the source digits. This
    mimics the 70,000-image MNIST (same size, dimensionality, value range and
    class structure) for scale tests; it is not a substitute for MNIST in
    accuracy experiments.

    Parameters
    ----------
    n_samples : int, default=70000
    base : Bunch or (X, y), optional
        Source images (n0 x 784, row-major 28 x 28, values in [0, 255]) and
        labels; ``load_dataset("mnist10k", data_dir=data_dir)`` when None.
    max_shift : int, default=2
    noise : float, default=0.1
        Noise standard deviation as a fraction of the pixel range.
    dtype : {np.float64, np.float32}, default=np.float64
    random_state : int, RandomState or None
    data_dir : str or path-like, optional
        Where ``mnist10k.mat`` lies (default: ``UFSEL_DATA``).

    Returns
    -------
    Bunch with ``data`` (n_samples x 784), ``target``, ``source_index`` (the
    row of the source image), ``shift`` (n_samples x 2), ``feature_shape``
    ((28, 28)) and ``image_order`` ("C").
    """
    rng = check_random_state(random_state)
    if base is None:
        from ._load import load_dataset

        base = load_dataset("mnist10k", data_dir=data_dir)
    X0, y0 = (base.data, base.target) if hasattr(base, "data") else base
    X0 = np.asarray(X0, dtype=dtype)
    y0 = np.asarray(y0)
    n0, d = X0.shape
    side = int(round(np.sqrt(d)))
    if side * side != d:
        raise ValueError(f"base images must be square, got {d} pixels per image.")
    n_new = max(0, n_samples - n0)
    src = np.concatenate([np.arange(min(n0, n_samples)), rng.randint(0, n0, n_new)])
    shifts = np.zeros((src.size, 2), dtype=np.intp)
    shifts[n0:] = rng.randint(-max_shift, max_shift + 1, size=(n_new, 2))
    X = np.empty((src.size, d), dtype=dtype)
    X[: min(n0, n_samples)] = X0[: min(n0, n_samples)]
    chunk = 10_000
    for start in range(n0, src.size, chunk):  # bounded temporaries
        stop = min(start + chunk, src.size)
        Xc = shift_images(X0[src[start:stop]], (side, side), shifts[start:stop])
        Xc += (noise * 255.0 * rng.standard_normal(Xc.shape)).astype(dtype)
        np.clip(Xc, 0.0, 255.0, out=Xc)
        X[start:stop] = Xc
    return Bunch(data=X, target=y0[src], source_index=src, shift=shifts,
                 feature_shape=(side, side), image_order="C", name="mnist70k_like")


def make_sparse_tfidf(n_samples=2000, n_features=5000, *, density=0.01, n_topics=5,
                      dtype=np.float64, random_state=None):
    """A sparse TF-IDF-like document-term matrix (CSR, rows L2-normalised).

    Each row draws about ``density * n_features`` distinct terms: half from
    a Zipf-like background distribution over all terms, half from its
    topic's block of ``n_features // (2 n_topics)`` terms, so the topic terms
    are the informative features. Term counts are Poisson(1) + 1, weighted by
    ``log(n / df)`` and each row scaled to unit norm.

    Parameters
    ----------
    n_samples : int, default=2000
        Number of documents.
    n_features : int, default=5000
        Number of terms.
    density : float, default=0.01
        Fraction of the terms present in a document, on average.
    n_topics : int, default=5
        Number of topics (the classes).
    dtype : dtype, default=numpy.float64
        Floating type of the matrix.
    random_state : int, RandomState or None, default=None
        Seeds the data.

    Returns
    -------
    Bunch with ``data`` (CSR, n_samples x n_features), ``target`` (topic of
    each row), ``informative`` (indices of the topic terms).
    """
    rng = check_random_state(random_state)
    nnz_row = max(2, int(round(density * n_features)))
    block = max(1, n_features // (2 * n_topics))
    y = rng.randint(0, n_topics, n_samples)
    zipf = 1.0 / np.arange(1, n_features + 1) ** 1.1
    zipf /= zipf.sum()
    n_bg = nnz_row - nnz_row // 2
    n_tp = min(nnz_row // 2, block)
    bg = rng.choice(n_features, size=(n_samples, n_bg), p=zipf)
    tp = y[:, None] * block + rng.randint(0, block, size=(n_samples, n_tp))
    cols = np.hstack([bg, tp])
    rows = np.repeat(np.arange(n_samples), cols.shape[1])
    counts = rng.poisson(1.0, cols.size) + 1.0
    X = sparse.csr_matrix((counts, (rows, cols.ravel())), shape=(n_samples, n_features))
    X.sum_duplicates()
    df = np.bincount(X.indices, minlength=n_features)
    idf = np.log((1.0 + n_samples) / (1.0 + df)) + 1.0
    X = X @ sparse.diags(idf)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sparse.diags(1.0 / np.maximum(norms, 1e-300)) @ X
    return Bunch(data=sparse.csr_matrix(X, dtype=dtype), target=y,
                 informative=np.arange(n_topics * block))
