"""The shared selector base class and the checks every selector shares.

Every ufsel selector is a scikit-learn estimator built on :class:`BaseSelector`.
A subclass implements ``_fit(X)``, which receives validated data and returns
one score per feature (higher is better); the base class resolves
``n_features_to_select``, turns the scores into ``ranking_`` (constant
features last, see :class:`BaseSelector`) and a support mask, and refuses
non-finite scores.
"""

from __future__ import annotations

import contextlib
import warnings
from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt
from sklearn.utils.validation import check_is_fitted, validate_data

from .graph import knn_affinity
from .linalg import constant_features
from .utils import import_optional, is_dask_array, thread_limit

__all__ = [
    "BaseSelector",
    "NumericalError",
    "check_magnitude",
    "check_n_neighbors",
    "check_n_clusters",
    "constant_last",
    "densify",
    "max_abs_value",
    "numerical_guard",
    "ranking_from_scores",
    "warn_not_converged",
]

#: Sparse input larger than this (in bytes, once dense) is never densified
#: by a method that needs dense data; it raises instead.
MAX_DENSE_BYTES = 4 * 1024**3


class NumericalError(ValueError, ArithmeticError):
    """An iterative method produced NaN/inf or diverged.

    Subclasses ``ValueError`` so that callers catching bad-input errors catch it.
    """


def ranking_from_scores(scores, tiebreak=None):
    """Rank features by decreasing score, 1 = best.

    Ties in ``scores`` are broken by ``tiebreak`` (lower is better), then by
    feature index, so the ranking is a deterministic permutation of 1..d that
    is consistent with the scores.

    Parameters
    ----------
    scores : ndarray of shape (n_features,)
    tiebreak : ndarray of shape (n_features,), optional

    Returns
    -------
    ranking : ndarray of shape (n_features,), dtype int
    """
    scores = np.asarray(scores, dtype=np.float64)
    d = scores.shape[0]
    keys = (np.arange(d),) if tiebreak is None else (np.arange(d), np.asarray(tiebreak))
    order = np.lexsort(keys + (-scores,))
    ranking = np.empty(d, dtype=np.intp)
    ranking[order] = np.arange(1, d + 1)
    return ranking


def constant_last(ranking, constant):
    """Move the features flagged in ``constant`` behind every other feature.

    The order within the non-constant features and within the constant ones
    is that of ``ranking``; the result is again a permutation of 1..d.

    Parameters
    ----------
    ranking : ndarray of int, shape (n_features,)
        ``ranking[j]`` = rank of feature j, 1 = best.
    constant : ndarray of bool, shape (n_features,)

    Returns
    -------
    ranking : ndarray of shape (n_features,), dtype int
        A new array (``ranking`` itself when no feature is constant).
    """
    ranking = np.asarray(ranking)
    constant = np.asarray(constant, dtype=bool)
    if not constant.any():
        return ranking
    order = np.argsort(ranking, kind="stable")  # features, best first
    order = np.concatenate([order[~constant[order]], order[constant[order]]])
    out = np.empty_like(ranking, dtype=np.intp)
    out[order] = np.arange(1, ranking.shape[0] + 1)
    return out


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


@contextlib.contextmanager
def numerical_guard(owner):
    """Turn NumPy overflow / invalid-operation errors inside a fit into :class:`NumericalError`.

    Inside the block, an operation that overflows to inf or produces NaN
    (``inf - inf``, ``0 / 0``, ``sqrt`` of a negative number) raises instead of
    warning and silently propagating; selectors that divide by quantities that
    may vanish use ``np.divide(..., where=...)`` or a local ``np.errstate``.
    A ``LinAlgError`` (singular system) becomes a :class:`NumericalError` too,
    and a ``ValueError`` raised by a shared building block (graph, linalg)
    that does not name the selector is re-raised with its name in front.
    """
    try:
        with np.errstate(over="raise", invalid="raise"):
            yield
    except NumericalError:
        raise
    except np.linalg.LinAlgError as exc:
        raise NumericalError(
            f"{owner}: a linear-algebra step failed during fit ({exc}). The data may be "
            "degenerate or badly scaled (standardise the features), or a regularisation "
            "parameter may be too small."
        ) from exc
    except ValueError as exc:
        if owner in str(exc):
            raise
        # an error from a shared building block: say which selector it stopped
        try:
            renamed = type(exc)(f"{owner}: {exc}")
        except Exception:  # pragma: no cover - exotic exception signature
            renamed = ValueError(f"{owner}: {exc}")
        raise renamed from exc
    except FloatingPointError as exc:
        raise NumericalError(
            f"{owner}: a floating-point operation failed during fit ({exc}); the result "
            "would be NaN or infinite. The data may be badly scaled (standardise the "
            "features) or a parameter may be extreme (move it towards its default)."
        ) from exc


def _numeric_2d(X, owner):
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


def _check_finite(X, owner):
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


def densify(X, owner, *, max_bytes=None):
    """Return a dense view of X, refusing sparse input that would not fit.

    Used only by methods whose mathematics needs a dense n x d matrix; their
    docstrings say so and their class has ``_sparse_native = False``.
    ``max_bytes`` defaults to the module's ``MAX_DENSE_BYTES`` (4 GiB), read
    at call time.
    """
    if not sparse.issparse(X):
        return X
    if max_bytes is None:
        max_bytes = MAX_DENSE_BYTES
    need = X.shape[0] * X.shape[1] * X.dtype.itemsize
    if need > max_bytes:
        raise ValueError(
            f"{owner} needs a dense copy of the sparse input, which would take "
            f"{need / 1024**3:.1f} GiB (limit {max_bytes / 1024**3:.1f} GiB). Use a "
            f"selector that works on sparse data ({', '.join(_sparse_native_names())}), "
            "or reduce the number of features first."
        )
    return X.toarray()


def _sparse_native_names():
    from ._registry import SELECTORS

    return [cls.__name__ for _, cls in sorted(SELECTORS.items())
            if getattr(cls, "_sparse_native", False)]


def warn_not_converged(owner, max_iter, last_change, tol):
    """Emit the ConvergenceWarning shared by all iterative selectors."""
    warnings.warn(
        f"{owner} did not converge within max_iter={max_iter} iterations "
        f"(last relative objective change {last_change:.3g} > tol={tol:g}). "
        "Increase max_iter or tol.",
        ConvergenceWarning,
        stacklevel=3,
    )


class RankingSelectorMixin(SelectorMixin):
    """The support mask and the tags of a selector that keeps its ``n_features_to_select_``
    best features by ``ranking_`` (1 = best): :class:`BaseSelector` and the
    meta-estimator :class:`~ufsel.model_selection.AutoSelector`."""

    def _get_support_mask(self):
        check_is_fitted(self, "ranking_")
        return self.ranking_ <= self.n_features_to_select_

    def _resolve_n_features(self, n_features):
        k = self.n_features_to_select
        if k is None:
            return max(1, n_features // 2)
        if isinstance(k, bool):
            raise ValueError(
                f"{type(self).__name__}: n_features_to_select={k} is a bool. Pass an int "
                "(number of features), a float in (0, 1] (fraction) or None (half)."
            )
        if isinstance(k, Integral):
            if k > n_features:
                raise ValueError(
                    f"{type(self).__name__}: n_features_to_select={k} is larger than the "
                    f"number of features ({n_features}). Pass a value <= {n_features}, a "
                    "fraction in (0, 1], or None for half of the features."
                )
            return int(k)
        # floor(k * d), at least 1; the relative slack keeps 0.29 * 100 at 29
        # although the product rounds to 28.999999999999996
        return max(1, int(np.floor(k * n_features * (1.0 + 1e-12))))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = False
        tags.target_tags.required = False
        return tags


class BaseSelector(RankingSelectorMixin, BaseEstimator):
    """Base class of every ufsel selector.

    A selector scores the features of X without labels; ``fit`` turns the scores
    into ``ranking_`` (constant features last) and a support mask of the
    ``n_features_to_select_`` best, so ``transform``, ``get_support`` and
    ``get_feature_names_out`` work as for scikit-learn's selectors.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=None
        Number of features to select (int), fraction of the features (float in
        (0, 1]), or None for half of them.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Feature scores, higher is better.
    ranking_ : ndarray of shape (n_features,)
        ``ranking_[j]`` is the rank of feature j, 1 = best; constant features
        come last (see Notes).
    constant_features_ : ndarray of bool, shape (n_features,)
        The features found constant in the data ``fit`` saw.
    n_features_to_select_ : int
        The resolved number of selected features.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of the features seen during ``fit``, only for input with string
        column names (a DataFrame).

    See Also
    --------
    sklearn.feature_selection.SelectorMixin : The scikit-learn mixin used here.

    Notes
    -----
    **Implementing a selector.** Subclasses store their constructor arguments
    unchanged and implement ``_fit(self, X)``, returning the feature scores
    (higher is better), or a pair ``(scores, tiebreak)`` whose second item orders
    features of equal score (lower first). Capabilities that scikit-learn has
    a tag for are tags (``__sklearn_tags__``): every selector accepts sparse
    input and refuses NaN; a method that computes in float32 when given float32
    data adds ``"float32"`` to ``transformer_tags.preserves_dtype``. Class
    attributes a subclass may override, for what scikit-learn has no tag for:

    - ``_min_samples``: fewest samples the method accepts.
    - ``_scores_depend_on_count``: True when the scores change with
      ``n_features_to_select`` (MCFS); such a selector overrides
      ``_fit_rankings``.
    - ``_supports_dask``: True when ``_fit`` accepts a ``dask.array.Array`` (it
      then uses only the dask-aware building blocks of :mod:`ufsel.linalg` and
      :mod:`ufsel.graph`). Dask input is validated by ``_validate_dask`` (lazily
      cast, columns in one chunk, one chunk-wise finiteness pass) and is never
      loaded whole.
    - ``_sparse_native``: True when ``_fit`` never forms a dense n x d copy of
      sparse X. False (the default) for methods whose mathematics needs dense X:
      they call :func:`densify`, which refuses sparse input whose dense copy would
      exceed ``MAX_DENSE_BYTES`` with a ``ValueError`` naming the sparse-native
      selectors. ``test_scale_sparse.py`` checks both for every registered
      selector.

    **Constant features.** A feature whose values are all equal (or whose
    standard deviation is at most 1e-12 times the largest one;
    :func:`ufsel.linalg.constant_features`) carries no information, but several
    objectives (UDFS, RUFS, NDFS, UFSA, ...) are smallest in directions where the
    data do not vary, so on raw data (an image's black border) such methods would
    select it first. ``fit`` therefore moves the constant features behind all the
    others in ``ranking_`` (keeping their order among themselves,
    :func:`constant_last`), so ``get_support()`` and ``transform`` pick one only
    when more features are requested than there are non-constant ones.
    ``fit_rankings`` applies the same rule to every per-count ranking.
    ``scores_`` is left as the method computed it (the method's own quantity,
    comparable with the paper); where the two disagree, ``ranking_`` is the
    authority, and it is consistent with ``scores_`` within the non-constant and
    within the constant features.

    ``fit`` and ``fit_rankings`` validate the parameters (``_fit_context``)
    and X (``_validate_X``, including :func:`check_magnitude`) alike, and run
    the computation in one scope: under the thread policy
    (:func:`ufsel.utils.thread_limit` for ``_problem_size(X)``, ``n * d``
    unless a method overrides it) and inside :func:`numerical_guard`. A graph
    or cluster based ``_fit`` starts with ``_start_fit`` (sample count checks,
    random generator) and builds its k-NN graph with ``_knn_affinity``. The
    reliability contract is in the user guide, :doc:`/guide/reliability`.
    """

    _parameter_constraints: dict = {
        "n_features_to_select": [
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
            None,
        ],
    }

    _min_samples = 2
    _scores_depend_on_count = False
    _supports_dask = False
    _sparse_native = False

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def _uses_n_clusters(self):
        """Whether the scores depend on the ``n_clusters`` parameter at the current
        settings (False for a selector without one; SPEC uses it only with phi3).
        :class:`~ufsel.model_selection.AutoSelector` tries such a method at several
        cluster counts, the others once."""
        return "n_clusters" in self.get_params(deep=False)

    # ------------------------------------------------------------------ API
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the feature scores from X (y is ignored).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self : object
        """
        X = self._prepare_fit(X)
        with self._fit_scope(X):
            result = self._fit(X)
        scores, tiebreak = result if isinstance(result, tuple) else (result, None)
        self._set_scores(scores, tiebreak, X=X)
        return self

    @_fit_context(prefer_skip_nested_validation=True)
    def fit_rankings(self, X, n_features_list):
        """Rankings for several feature counts from as few fits as possible.

        Methods whose scores do not depend on the number of selected features
        are fitted once; MCFS computes one LARS path for all counts. Constant
        features come last in every ranking, as in ``ranking_``. The
        parameters and X are validated as by :meth:`fit`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        n_features_list : iterable of int

        Returns
        -------
        rankings : dict of int -> ndarray of shape (n_features,)
            ``rankings[k]`` is the ranking to use when selecting k features
            (its first k entries by rank are the selected set). A fitted clone
            of this estimator is left untouched; ``self`` is not modified.
        """
        values = list(n_features_list)
        if not values or not all(
            isinstance(k, Integral) and not isinstance(k, bool) and k >= 1 for k in values
        ):
            raise ValueError(
                f"n_features_list must be a non-empty list of positive integers, got {values!r}."
            )
        counts = sorted({int(k) for k in values})
        est = clone(self).set_params(n_features_to_select=counts[-1])
        if not self._scores_depend_on_count:
            est.fit(X)
            return {k: est.ranking_.copy() for k in counts}
        X = est._prepare_fit(X)
        with est._fit_scope(X):
            rankings = est._fit_rankings(X, counts)
        return {k: constant_last(r, est.constant_features_) for k, r in rankings.items()}

    def _fit_rankings(self, X, counts):  # pragma: no cover - overridden where used
        """Per-count rankings from validated X (``n_features_to_select_`` is the largest count)."""
        raise NotImplementedError

    # ------------------------------------------------------------ internals
    def _prepare_fit(self, X):
        """The data preparation ``fit`` and ``fit_rankings`` share: validated X, with
        ``n_features_to_select_`` resolved (the parameters are validated by ``_fit_context``)."""
        X = self._validate_X(X)
        self.n_features_to_select_ = self._resolve_n_features(X.shape[1])
        return X

    def _problem_size(self, X):
        """The size the thread policy sees (:func:`ufsel.utils.thread_limit`): the
        number of entries of the largest matrix a fit works on, ``n_samples *
        n_features`` unless a method overrides it."""
        return X.shape[0] * X.shape[1]

    @contextlib.contextmanager
    def _fit_scope(self, X):
        """The one place a fit runs: under the thread policy and :func:`numerical_guard`."""
        with thread_limit(self._problem_size(X)), numerical_guard(type(self).__name__):
            yield

    def _start_fit(self, X, *, n_neighbors=None, n_clusters=None):
        """The checks and random generator a graph or cluster based ``_fit`` starts with.

        Checks that the data hold enough samples for ``n_neighbors`` (default:
        the selector's ``n_neighbors`` parameter, where it has one) and
        ``n_clusters`` (likewise); pass ``False`` to skip a check. Returns the
        generator made from the ``random_state`` parameter (None without one).
        """
        name = type(self).__name__
        n = X.shape[0]
        params = self.get_params(deep=False)
        if n_neighbors is None:
            n_neighbors = params.get("n_neighbors")
        if n_clusters is None:
            n_clusters = params.get("n_clusters")
        if n_neighbors is not None and n_neighbors is not False:
            check_n_neighbors(n_neighbors, n, name)
        if n_clusters is not None and n_clusters is not False:
            check_n_clusters(n_clusters, n, name)
        if "random_state" not in params:
            return None
        return check_random_state(params["random_state"])

    #: knn_affinity's keyword -> the selector parameter that sets it
    _GRAPH_PARAMETERS = {"weight": "weight", "t": "t", "symmetrize_mode": "symmetrize",
                         "algorithm": "neighbors_algorithm"}

    def _knn_affinity(self, X, random_state=None, **fixed):
        """The selector's k-NN affinity graph (:func:`ufsel.graph.knn_affinity`).

        Built with ``n_neighbors`` and the graph parameters the selector has
        (``weight``, ``t``, ``symmetrize``, ``neighbors_algorithm``); a
        keyword in ``fixed`` is a choice the method makes itself (SPEC's heat
        kernel) and wins. Without a parameter, knn_affinity's default applies.
        """
        params = self.get_params(deep=False)
        kw = {key: params[name] for key, name in self._GRAPH_PARAMETERS.items() if name in params}
        kw.update(fixed)
        return knn_affinity(X, self.n_neighbors, random_state=random_state, **kw)

    def _preserves_float32(self):
        return "float32" in self.__sklearn_tags__().transformer_tags.preserves_dtype

    def _validate_X(self, X, *, reset=True):
        """Validate X at the selector's boundary; every refusal is a one-line ValueError
        of ours that names the selector."""
        if is_dask_array(X):
            return self._validate_dask(X, reset=reset)
        name = type(self).__name__
        X = _numeric_2d(X, name)
        self._check_n_samples(X.shape, name)
        dtype = [np.float64, np.float32] if self._preserves_float32() else np.float64
        try:
            X = validate_data(
                self,
                X,
                accept_sparse=("csr", "csc"),
                dtype=dtype,
                # One memory layout for every dense input: BLAS sums in an order that
                # follows the layout, so a C- and an F-ordered copy of the same data
                # gave scores 1 ulp apart (MCFS on a CSV against the same array from
                # NumPy). Fortran order is what the benchmark .mat files load as, so
                # their results are unchanged; a C-ordered input is copied once.
                order="F",
                ensure_all_finite=False,  # checked below, with our message
                ensure_min_samples=self._min_samples,
                reset=reset,
            )
        except ValueError as exc:  # what our checks above leave to scikit-learn
            raise ValueError(f"{name}: {exc}") from exc
        _check_finite(X, name)
        check_magnitude(X, name)
        return X

    def _check_n_samples(self, shape, name):
        n, d = shape
        if n < self._min_samples:
            raise ValueError(
                f"{name}: X has {n} sample(s) (shape={tuple(shape)}) while a minimum of "
                f"{self._min_samples} is required."
            )
        if d < 1:
            raise ValueError(
                f"{name}: X has 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is "
                "required."
            )

    def _validate_dask(self, X, *, reset=True):
        """The dask counterpart of ``validate_data``: shape, dtype, finiteness, n_features_in_."""
        name = type(self).__name__
        if not self._supports_dask:
            from ._registry import SELECTORS

            able = sorted(k for k, cls in SELECTORS.items() if cls._supports_dask)
            raise TypeError(
                f"{name} does not accept dask arrays. Selectors that do: {able}. "
                "Otherwise load the data into memory (X.compute()) first."
            )
        da = import_optional("dask.array", purpose=f"Fitting {name} on a dask array")
        if X.ndim != 2:
            raise ValueError(f"{name} needs a 2D array, got a {X.ndim}D dask array.")
        if any(np.isnan(c) for c in X.shape):
            raise ValueError(
                f"{name} needs the dask array's chunk sizes; call X.compute_chunk_sizes() first."
            )
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{name} needs numeric input, got a dask array of dtype {X.dtype}.")
        n, d = X.shape
        self._check_n_samples(X.shape, name)
        dtype = (np.float32 if self._preserves_float32() and X.dtype == np.float32
                 else np.float64)
        X = X.astype(dtype).rechunk({1: -1})
        if not bool(da.isfinite(X).all().compute()):
            raise ValueError(
                f"{name}: X contains NaN or infinity. Impute or drop the non-finite entries "
                "before fitting."
            )
        if reset:
            self.n_features_in_ = d
            if hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
        elif d != self.n_features_in_:
            raise ValueError(
                f"X has {d} features, but {name} is expecting {self.n_features_in_} "
                "features as input."
            )
        return X

    def transform(self, X):
        """Reduce X to the selected features (a dask array stays a lazy dask array).

        Parameters
        ----------
        X : {array-like, sparse matrix, dask array} of shape (n_samples, n_features)
            The data to reduce, with the features seen in ``fit``.
        """
        if is_dask_array(X):
            check_is_fitted(self, "ranking_")
            X = self._validate_dask(X, reset=False)
            return X[:, self.get_support()]
        return super().transform(X)

    def _set_scores(self, scores, tiebreak=None, *, X):
        """Set ``scores_``, ``constant_features_`` and ``ranking_`` (constant features last).

        ``X`` is the validated data the scores were computed from.
        """
        scores = np.asarray(scores, dtype=np.float64).reshape(-1)
        if scores.shape[0] != self.n_features_in_:
            raise RuntimeError(  # pragma: no cover - programming error
                f"{type(self).__name__} produced {scores.shape[0]} scores for "
                f"{self.n_features_in_} features."
            )
        if not np.all(np.isfinite(scores)):
            raise NumericalError(
                f"{type(self).__name__} produced non-finite feature scores "
                f"({int(np.sum(~np.isfinite(scores)))} of {scores.size}). The data may be "
                "badly scaled (standardise the features) or a regularisation parameter "
                "may be extreme."
            )
        self.scores_ = scores
        # The base's mask replaces any a method set itself (UFSA leaves out
        # std <= 1e-12 max std, a subset of it), so one rule governs ranking_.
        self.constant_features_ = constant_features(X)
        self.ranking_ = constant_last(ranking_from_scores(scores, tiebreak),
                                      self.constant_features_)
