"""Input validation shared by the selectors and the building blocks.

The checks raise a one-line ``ValueError`` that names ``owner`` (the selector or
function that was called) and says what to do. The memory limit of :func:`densify` is
the configuration's ``max_dense_bytes`` (:func:`ufsel.set_config`).
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from scipy import sparse

from ..exceptions import DenseCopyTooLargeError
from ._config import get_config
from ._optional import import_optional

__all__ = [
    "check_finite",
    "check_magnitude",
    "check_n_clusters",
    "check_n_neighbors",
    "check_n_samples",
    "densify",
    "max_abs_value",
    "numeric_2d",
    "resolve_n_features",
    "validate_dask_array",
]


def check_n_neighbors(n_neighbors, n_samples, owner):
    """Raise a ValueError when a k-NN graph cannot be built on ``n_samples``."""
    if n_samples < n_neighbors + 1:
        raise ValueError(
            f"{owner} builds a {n_neighbors}-nearest-neighbour graph and needs at "
            f"least n_neighbors + 1 = {n_neighbors + 1} samples, got n_samples={n_samples}. "
            f"Pass n_neighbors <= {max(n_samples - 1, 1)} or provide more samples."
        )


def check_n_clusters(n_clusters, n_samples, owner, *, name="n_clusters"):
    """Raise a ValueError when ``n_clusters`` does not fit the data."""
    if n_clusters >= n_samples:
        raise ValueError(
            f"{owner} needs {name} < n_samples, got {name}={n_clusters} with "
            f"n_samples={n_samples}. Pass {name} <= {max(n_samples - 1, 1)}."
        )


def max_abs_value(X):
    """Largest absolute entry of a dense or sparse matrix (0 for an empty one)."""
    data = X.data if sparse.issparse(X) else X
    return float(max(data.max(), -data.min())) if data.size else 0.0


def check_magnitude(X, owner):
    """Refuse data whose squared distances or Gram entries would overflow or underflow.

    Selectors compute sums of ``n`` or ``d`` squared values (variances, Gram
    matrices, squared Euclidean distances between points up to ``2 max|x|``
    apart), which stay finite when ``max|x| <= sqrt(max_float / (4 max(n, d)))``
    (about 1e150 for a million samples or features in float64, 1e16 in
    float32). Values that large are
    almost always a unit or encoding error; the fix is to rescale. Data whose
    largest magnitude is below ``sqrt(tiny)`` (1.5e-154 in float64) is refused
    too: its squares underflow and every feature would look constant.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The validated data.
    owner : str
        Name used in the error message (the calling selector).
    """
    fmax = float(np.finfo(X.dtype).max) if X.dtype.kind == "f" else float(np.finfo(np.float64).max)
    limit = np.sqrt(fmax / (4.0 * max(X.shape[0], X.shape[1], 1)))
    amax = max_abs_value(X)
    tiny = float(np.sqrt(np.finfo(X.dtype if X.dtype.kind == "f" else np.float64).tiny))
    if 0.0 < amax < tiny:
        raise ValueError(
            f"{owner}: the largest magnitude in X is {amax:.3g}, below {tiny:.3g}: squared "
            "values underflow to zero and every feature would look constant. Rescale the "
            "features first (for example with sklearn.preprocessing.StandardScaler)."
        )
    if amax > limit:
        raise ValueError(
            f"{owner}: X holds values of magnitude up to {amax:.3g}, above the limit "
            f"{limit:.3g} for data of shape {X.shape}: squared distances and Gram matrices "
            "would overflow float64. Rescale the features first (for example with "
            "sklearn.preprocessing.StandardScaler or MaxAbsScaler)."
        )


def numeric_2d(X, owner):
    """X as a two-dimensional numeric array-like, or a one-line ValueError naming ``owner``.

    A DataFrame is returned as it is (scikit-learn reads its feature names) once
    every column is numeric; other array-likes become an ndarray.
    """
    if sparse.issparse(X):
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{owner} needs numeric input, got a sparse matrix of dtype "
                             f"{X.dtype}.")
        return X
    dtypes = getattr(X, "dtypes", None)
    if dtypes is not None and getattr(X, "ndim", None) == 2:  # a DataFrame
        bad = [str(col) for col, dt in dtypes.items() if getattr(dt, "kind", "O") not in "biuf"]
        if bad:
            raise ValueError(
                f"{owner} needs numeric input, but column(s) {bad[:5]} of X hold values that "
                "are not numbers. Encode categorical columns (for example with "
                "sklearn.preprocessing.OneHotEncoder) or drop them before fitting."
            )
        return X
    A = np.asarray(X)
    if A.dtype.kind == "c":  # the phrase scikit-learn's estimator checks expect
        raise ValueError(f"{owner}: Complex data not supported (X has dtype {A.dtype}). Pass "
                         "real numbers, for example the modulus or the real part.")
    if A.dtype.kind not in "biufOUS":  # datetime, ...
        raise ValueError(f"{owner} needs numeric input, got X of dtype {A.dtype}.")
    if A.dtype.kind in "OUS":
        try:
            A = A.astype(np.float64)
        except ValueError as exc:  # text that is not a number
            raise ValueError(
                f"{owner} needs numeric input, but X holds values that are not numbers ({exc}). "
                "Encode categorical columns (for example with "
                "sklearn.preprocessing.OneHotEncoder) or drop them before fitting."
            ) from None
        except TypeError as exc:  # an object that is no number at all: still a TypeError
            raise TypeError(f"{owner} needs numeric input: {exc}.") from None
    if A.ndim != 2:
        raise ValueError(
            f"{owner} needs a 2D array of shape (n_samples, n_features), got a {A.ndim}D array "
            f"of shape {A.shape}. Use X.reshape(-1, 1) for a single feature."
        )
    return A


def check_finite(X, owner):
    """Refuse NaN and infinite entries with a one-line ValueError naming ``owner``."""
    data = X.data if sparse.issparse(X) else X
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(data.sum()):  # one pass for finite data; the sum may overflow
            return
    if np.isnan(data).any():
        raise ValueError(
            f"{owner}: X contains NaN (missing values), which ufsel selectors do not "
            "accept. Impute them (for example with sklearn.impute.SimpleImputer) or "
            "drop the affected samples or features before fitting."
        )
    if not np.isfinite(data).all():
        raise ValueError(
            f"{owner}: X contains infinity. Replace or drop the non-finite entries (or "
            "rescale the data) before fitting."
        )


def resolve_n_features(n_features_to_select, n_features, owner):
    """The number of features to select: an int as it is (at most ``n_features``), a
    fraction in (0, 1] of ``n_features`` (rounded down, at least 1), None for half."""
    k = n_features_to_select
    if k is None:
        return max(1, n_features // 2)
    if isinstance(k, bool):
        raise ValueError(
            f"{owner}: n_features_to_select={k} is a bool. Pass an int "
            "(number of features), a float in (0, 1] (fraction) or None (half)."
        )
    if isinstance(k, Integral):
        if k > n_features:
            raise ValueError(
                f"{owner}: n_features_to_select={k} is larger than the "
                f"number of features ({n_features}). Pass a value <= {n_features}, a "
                "fraction in (0, 1], or None for half of the features."
            )
        return int(k)
    # floor(k * d), at least 1; the relative slack keeps 0.29 * 100 at 29
    # although the product rounds to 28.999999999999996
    return max(1, int(np.floor(k * n_features * (1.0 + 1e-12))))


def check_n_samples(shape, min_samples, owner):
    """Refuse data with fewer than ``min_samples`` samples or with no feature."""
    n, d = shape
    if n < min_samples:
        raise ValueError(
            f"{owner}: X has {n} sample(s) (shape={tuple(shape)}) while a minimum of "
            f"{min_samples} is required."
        )
    if d < 1:
        raise ValueError(
            f"{owner}: X has 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is "
            "required."
        )


def validate_dask_array(X, min_samples, owner, *, float32=False):
    """A dask array checked as ``validate_data`` checks an in-memory one, never loaded whole.

    Checks the shape (two dimensions, known chunk sizes, at least ``min_samples``
    samples), a numeric dtype and finiteness (one chunk-wise pass); casts lazily to
    float64 (float32 input stays float32 when ``float32``) with the columns in one
    chunk.
    """
    da = import_optional("dask.array", purpose=f"Fitting {owner} on a dask array")
    if X.ndim != 2:
        raise ValueError(f"{owner} needs a 2D array, got a {X.ndim}D dask array.")
    if any(np.isnan(c) for c in X.shape):
        raise ValueError(
            f"{owner} needs the dask array's chunk sizes; call X.compute_chunk_sizes() first."
        )
    if X.dtype.kind not in "biuf":
        raise ValueError(f"{owner} needs numeric input, got a dask array of dtype {X.dtype}.")
    if sparse.issparse(getattr(X, "_meta", None)):
        raise TypeError(
            f"{owner} needs a dask array of dense chunks, got scipy.sparse chunks; convert "
            "them with X.map_blocks(lambda b: b.toarray()), or pass CSR in memory."
        )
    check_n_samples(X.shape, min_samples, owner)
    dtype = np.float32 if float32 and X.dtype == np.float32 else np.float64
    X = X.astype(dtype).rechunk({1: -1})
    if not bool(da.isfinite(X).all().compute()):
        raise ValueError(
            f"{owner}: X contains NaN or infinity. Impute or drop the non-finite entries "
            "before fitting."
        )
    return X


def densify(X, owner, *, max_bytes=None):
    """Return a dense view of X, refusing sparse input that would not fit.

    Used only by methods whose mathematics needs a dense n x d matrix; their
    docstrings say so and their tag ``sparse_native`` is False
    (:func:`ufsel.utils.get_selector_tags`).

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data; dense input is returned as it is.
    owner : str
        Name used in the error message (the calling selector or function).
    max_bytes : int, optional
        The largest dense copy allowed, in bytes; by default the configuration's
        ``max_dense_bytes`` (4 GiB unless changed with :func:`ufsel.set_config`).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)

    Raises
    ------
    DenseCopyTooLargeError
        When the dense copy of sparse X would take more than ``max_bytes``.
    """
    if not sparse.issparse(X):
        return X
    if max_bytes is None:
        max_bytes = get_config()["max_dense_bytes"]
    need = X.shape[0] * X.shape[1] * X.dtype.itemsize
    if need > max_bytes:
        raise DenseCopyTooLargeError(
            f"{owner} needs a dense copy of the sparse input, which would take "
            f"{need / 1024**3:.1f} GiB (limit {max_bytes / 1024**3:.1f} GiB, "
            "ufsel.set_config(max_dense_bytes=...)). Use a selector that works on sparse "
            "data, or reduce the number of features first."
        )
    return X.toarray()
