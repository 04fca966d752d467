"""The shared selector base class: the estimator template and the ranking helpers.

Every ufsel selector is a scikit-learn estimator built on :class:`BaseSelector`.
A subclass implements ``_fit(X)``, which receives validated data and returns
one score per feature (higher is better); the base class resolves
``n_features_to_select``, turns the scores into ``ranking_`` (constant
features last, see :class:`BaseSelector`) and a support mask, and refuses
non-finite scores. Input validation is in :mod:`ufsel.utils`, the
exceptions in :mod:`ufsel.exceptions`; the names once defined here are imported here.
"""

from __future__ import annotations

import contextlib
import warnings
from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, _fit_context, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt
from sklearn.utils.validation import check_is_fitted, validate_data

from ._fit_errors import numerical_guard, warn_not_converged
from .exceptions import NumericalError
from .graph import knn_affinity, pca_knn_affinity
from .linalg import constant_features
from .utils import get_config, is_dask_array, thread_limit
from .utils._docstrings import fill_doc
from .utils._memory import base_terms, check_fit_memory
from .utils._tags import SelectorTags, Tags, get_selector_tags, selectors_with
from .utils._validation import (
    check_finite,
    check_magnitude,
    check_n_clusters,
    check_n_neighbors,
    check_n_samples,
    densify,
    numeric_2d,
    resolve_n_features,
    validate_dask_array,
)

__all__ = ["BaseSelector", "NumericalError", "check_magnitude", "check_n_clusters",
           "check_n_neighbors", "constant_last", "densify", "numerical_guard",
           "ranking_from_scores", "warn_not_converged"]


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


def __getattr__(name):
    """``MAX_DENSE_BYTES``, deprecated: ``ufsel.get_config()["max_dense_bytes"]``."""
    if name != "MAX_DENSE_BYTES":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    warnings.warn("ufsel.base.MAX_DENSE_BYTES is deprecated: use ufsel.get_config() and "
                  "ufsel.set_config(max_dense_bytes=...).", FutureWarning, stacklevel=2)
    return get_config()["max_dense_bytes"]


class RankingSelectorMixin(SelectorMixin):
    """The support mask and the tags of a selector that keeps its ``n_features_to_select_``
    best features by ``ranking_`` (1 = best): :class:`BaseSelector` and the
    meta-estimator :class:`~ufsel.model_selection.AutoSelector`."""

    def _get_support_mask(self):
        check_is_fitted(self, "ranking_")
        return self.ranking_ <= self.n_features_to_select_

    def _resolve_n_features(self, n_features):
        return resolve_n_features(self.n_features_to_select, n_features, type(self).__name__)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.allow_nan = False
        tags.target_tags.required = False
        return Tags.from_sklearn(tags, SelectorTags())


@fill_doc
class BaseSelector(RankingSelectorMixin, BaseEstimator):
    """Base class of every ufsel selector.

    A selector scores the features of X without labels; ``fit`` turns the scores
    into ``ranking_`` (constant features last) and a support mask of the
    ``n_features_to_select_`` best, so ``transform``, ``get_support`` and
    ``get_feature_names_out`` work as for scikit-learn's selectors.

    Parameters
    ----------
    {n_features_to_select}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Feature scores, higher is better.
    {selector_attributes}

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
    data adds ``"float32"`` to ``transformer_tags.preserves_dtype``. What
    scikit-learn has no tag for is in ``tags.selector_tags``
    (:class:`~ufsel.utils.SelectorTags`, read with
    :func:`~ufsel.utils.get_selector_tags`), set in the subclass's
    ``__sklearn_tags__``: ``uses_n_clusters`` (by default, whether the selector
    has an ``n_clusters`` parameter), ``scores_depend_on_count`` (such a selector
    overrides ``_fit_rankings``), ``supports_dask`` (``_fit`` accepts a
    ``dask.array.Array``, validated by ``_validate_dask``) and ``sparse_native``
    (``_fit`` never forms a dense n x d copy of sparse X; the others call
    :func:`densify`, which refuses a copy above ``max_dense_bytes``, and
    ``fit`` then names the sparse-native selectors; ``test_scale_sparse.py``
    checks every selector). The class attribute ``_min_samples`` is the fewest
    samples the method accepts.

    **Shared docstring text.** A docstring line ``{name}`` stands for the entries
    ``ufsel.utils._docstrings.SHARED_DOCSTRINGS[name]``, filled in for every
    subclass (:func:`~ufsel.utils._docstrings.fill_doc`).

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
    and X (``_validate_X``, including :func:`check_magnitude`) alike, refuse a
    fit whose estimated peak memory exceeds ``max_fit_bytes``
    (:func:`~ufsel.utils.check_fit_memory`, from the costs the selector names in
    ``_memory_terms``) before any work, and run
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

    def __init__(self, n_features_to_select=None):
        self.n_features_to_select = n_features_to_select

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fill_doc(cls)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.uses_n_clusters = "n_clusters" in self.get_params(deep=False)
        return tags

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
        if not get_selector_tags(self).scores_depend_on_count:
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
        check_fit_memory(self, X)
        return X

    def _memory_terms(self, shape):
        """The named peak-memory costs of a fit on data of ``shape``, in bytes.

        ``shape`` is a :class:`~ufsel.utils.DataShape` (n, d, nnz, itemsize, kind);
        the result maps what is allocated ("a 5000 x 5000 Gram") to its bytes. The
        base counts what every fit allocates (:func:`ufsel.utils.base_terms`);
        a selector adds its own largest allocations with the blocks of
        :mod:`ufsel.utils._memory`. :func:`~ufsel.utils.check_fit_memory` sums them.
        """
        return base_terms(shape)

    def _problem_size(self, X):
        """The size the thread policy sees (:func:`ufsel.utils.thread_limit`): the
        entries of the largest matrix a fit works on, by default ``n * d``."""
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
        if params.get("graph") == "pca":  # the k-NN graph of the samples' principal components
            return pca_knn_affinity(X, self.n_neighbors, random_state=random_state, **kw)
        return knn_affinity(X, self.n_neighbors, random_state=random_state, **kw)

    def _preserves_float32(self):
        return "float32" in self.__sklearn_tags__().transformer_tags.preserves_dtype

    def _validate_X(self, X, *, reset=True):
        """Validate X at the selector's boundary; every refusal is a one-line ValueError
        of ours that names the selector."""
        if is_dask_array(X):
            return self._validate_dask(X, reset=reset)
        name = type(self).__name__
        X = numeric_2d(X, name)
        check_n_samples(X.shape, self._min_samples, name)
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
        check_finite(X, name)
        check_magnitude(X, name)
        return X

    def _validate_dask(self, X, *, reset=True):
        """The dask counterpart of ``validate_data``: shape, dtype, finiteness, n_features_in_."""
        name = type(self).__name__
        if not get_selector_tags(self).supports_dask:
            able = list(selectors_with("supports_dask"))
            raise TypeError(
                f"{name} does not accept dask arrays. Selectors that do: {able}. "
                "Otherwise load the data into memory (X.compute()) first."
            )
        X = validate_dask_array(X, self._min_samples, name,
                                float32=self._preserves_float32())
        d = X.shape[1]
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
