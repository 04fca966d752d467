"""AutoSelector: method, number of clusters and feature count chosen without labels."""

from __future__ import annotations

import dataclasses
import math
import os
import warnings
from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import validate_data

from .._registry import get_selector
from ..base import RankingSelectorMixin
from ..exceptions import MemoryLimitError
from ..graph import reuse_neighbor_searches
from ..linalg import column_mean_var, constant_features
from ..utils import check_fit_memory, estimate_fit_memory, get_selector_tags, thread_limit
from ._criteria import (
    CRITERIA,
    DEFAULT_CRITERION,
    MAX_CRITERION_SAMPLES,
    _standardize,
    agreement_scales,
    make_criterion,
)
from ._feature_count import (
    DEFAULT_N_SE,
    DEFAULT_PREFER,
    DEFAULT_TOLERANCE,
    ESTIMATE_REPEATS,
    default_counts,
    feature_count_curve,
)
from ._n_clusters import estimate_n_clusters
from ._random_subset import _enumerable, null_subsets, summarize_null
from ._recommend import MethodRecommender, meta_features, read_training_table
from ._verdict import assess_selection

__all__ = ["AutoSelector", "select_features", "DEFAULT_METHODS", "scale_spread",
           "smallest_testable_count", "standardized"]

#: Candidate methods (registry names) tried by default: the fast ones, among them
#: PivotedQR, whose features are the least redundant.
DEFAULT_METHODS = ("maxvariance", "laplacianscore", "spec", "mcfs", "spcafs", "pivotedqr")

#: Fractions of d at which candidates are compared (their z-scores averaged).
COMPARISON_RATIOS = (0.02, 0.05, 0.1)

#: Above this :func:`scale_spread`, the features are taken to be in different units.
UNITS_SPREAD = 30.0

#: "Beats random" is said only where the recommended method beat random subsets on at
#: least this weighted fraction of the nearest benchmark data sets (every one of them),
#: and is predicted to gain more than :data:`MIN_PREDICTED_GAIN` ACC over them;
#: otherwise a passing test gives "cannot tell". The thresholds are those that
#: ``benchmarks/label_free/evaluate_pool.py`` chooses on the pool (the same for every
#: held-out data set).
MIN_SUPPORT = 1.0
MIN_PREDICTED_GAIN = 0.02

#: Random subsets of the verdict's test.
VERDICT_DRAWS = 100

#: The verdict judges the procedure on held-out samples from this many samples on
#: (:func:`assess_selection`); on fewer, the selection on the samples it was made on.
HELD_OUT_MIN_SAMPLES = 20

#: The stability refits the chosen method on subsamples of at most this many rows
#: (half the rows on smaller data).
STABILITY_ROWS = 500


def scale_spread(X):
    """How far apart the features' units are: the 90th over the 10th percentile of the ranges.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data, validated.

    Returns
    -------
    spread : float
        ``percentile(range, 90) / percentile(range, 10)`` over the non-constant
        columns (``range = max - min``); 1.0 with fewer than two of them. Pixels,
        counts and discretised expression levels share one unit and stay below
        about 12 on the shared data sets; tables that mix units (wine, breast
        cancer) exceed 50.
    """
    if sparse.issparse(X):
        X = sparse.csc_matrix(X)
        ranges = (X.max(axis=0).toarray() - X.min(axis=0).toarray()).ravel()
    else:
        ranges = np.ptp(np.asarray(X), axis=0)
    ranges = ranges[ranges > 0]
    if ranges.size < 2:
        return 1.0
    low, high = np.percentile(ranges, [10, 90])
    return float(high / low)


def smallest_testable_count(n_features, *, n_draws=VERDICT_DRAWS, alpha=0.05):
    """The smallest subset size whose random-subset test can reach ``p <= alpha``.

    Parameters
    ----------
    n_features : int
        d, the number of features.
    n_draws : int, default=100
        Random subsets of the test.
    alpha : float, default=0.05
        Its level.

    Returns
    -------
    k : int
        1 on most data; more when there are fewer than ``1 / alpha`` subsets of
        a smaller size (2 of wine's 13 features: 13 single features, 78 pairs).
        ``n_features`` when no size qualifies.
    """
    for k in range(1, n_features):
        if _enumerable(n_features, k, n_draws):
            if 1.0 / math.comb(n_features, k) <= alpha:
                return k
        elif 1.0 / (1.0 + n_draws) <= alpha:
            return k
    return n_features


def standardized(X):
    """X with every non-constant column scaled to unit variance.

    The one standardiser of the route and of ``ufsel select --standardize``.

    Parameters
    ----------
    X : {ndarray, sparse matrix} of shape (n_samples, n_features)
        The data.

    Returns
    -------
    Xs : ndarray or sparse matrix
        Dense columns centred and scaled; a sparse matrix only scaled (centring
        would densify it). Constant columns are set to 0 (dense) or kept (sparse).
    """
    const = constant_features(X)
    if sparse.issparse(X):
        _, var = column_mean_var(X)
        scale = np.where(const | (var == 0), 1.0, np.sqrt(var))
        return sparse.csr_matrix(X @ sparse.diags(1.0 / scale))
    return _standardize(np.array(X, dtype=np.float64), const)


def candidate_params(cls, n_clusters):
    """The parameters a candidate method is fitted with: its defaults, and ``n_clusters``
    and ``random_state=0`` where it has them."""
    defaults = cls().get_params()
    params = {}
    if "n_clusters" in defaults:
        params["n_clusters"] = n_clusters
    if "random_state" in defaults:
        params["random_state"] = 0
    return params


def _comparison_counts(d):
    return np.unique(np.clip(np.ceil(np.asarray(COMPARISON_RATIOS) * d).astype(int), 1,
                             max(d - 1, 1)))


class AutoSelector(RankingSelectorMixin, BaseEstimator):
    """Unsupervised feature selection with the method, K and the count chosen without labels.

    A meta-estimator over the registered selectors: it fits each candidate
    method, keeps the one whose top features beat random subsets the most by a
    label-free criterion, suggests how many features to keep, and judges the
    result (:class:`Verdict`). ``ufsel select`` without ``--method`` runs it.

    Read more in the :ref:`User Guide <label-free>`.

    Parameters
    ----------
    n_features_to_select : "auto", int or float in (0, 1], default="auto"
        "auto": the count from :func:`suggest_n_features`, raised to the
        smallest count the verdict's test can judge
        (:func:`smallest_testable_count`); an int is a count, a float a
        fraction of the features.
    n_clusters : "auto" or int >= 2, default="auto"
        K, the coarsest scale of the criterion; "auto" estimates it
        (:func:`estimate_n_clusters`).
    methods : list of str, default=None
        Registry names of the candidate methods; None means
        :data:`DEFAULT_METHODS` with ``choice="criterion"`` and every method of
        the recommender's table with ``choice="recommend"``.
    choice : {"recommend", "criterion"}, default="recommend"
        How the method is chosen: "recommend" asks the
        :class:`MethodRecommender` (the method that beat random subsets the
        most on the benchmark data sets nearest to X by
        :func:`meta_features`); "criterion" fits every candidate and keeps the
        one whose top features beat random subsets the most by the label-free
        criterion.
    recommender_table : str, path-like or None, default=None
        The recommender's training table
        (``benchmarks/label_free/train_recommender.py`` writes one from
        ``ufsel bench`` results); None uses the one shipped with ufsel.
    candidate_n_clusters : {"scales", "estimate"}, default="scales"
        The ``n_clusters`` a candidate whose scores depend on it (MCFS) is
        fitted with: each scale of the criterion (K, 2K, 4K, ... up to
        sqrt(m), m = min(n, 1000)), or K alone.
    standardize : bool or "auto", default="auto"
        Work on X standardised to unit variance (True), on X as given (False),
        or standardise when the features' ranges spread more than
        :data:`UNITS_SPREAD` apart ("auto", see :func:`scale_spread`). The
        candidates, the criterion and the verdict all see the same data.
        With False and features in different units, a ``UserWarning`` says so.
    method_params : dict or None, default=None
        Parameters of the candidate method(s), on top of their defaults (an
        ``n_clusters`` among them fixes the method's K). ``ufsel select
        --method NAME --param KEY=VALUE`` passes them with ``methods=[NAME]``
        and ``choice="criterion"``: one configuration, fitted without
        comparison.
    criterion : {"multiscale_agreement", "cluster_agreement", \
            "knn_preservation", "reconstruction"}, default="multiscale_agreement"
        The label-free criterion of a subset (see :func:`random_subset_test`).
    n_draws : int, default=20
        Random subsets per count for choosing the configuration and the count.
    n_resamples : int, default=10
        Refits on subsamples for the stability (0 skips it).
    alpha : float, default=0.05
        Level of the verdict's test.
    verdict : bool, default=True
        Judge the selection (``verdict_``); False skips the test and the
        stability.
    random_state : int, RandomState or None, default=0
        Seeds the criterion's row sample, the random subsets and the
        resamples; the same seed gives the same result whatever the thread
        count. :func:`select_features` and ``ufsel select`` use 0 too.
    verbose : int, default=0
        1 prints one line per decision, 2 also one per step and candidate, 3 also one
        per fit.

    Attributes
    ----------
    method_ : str
        Registry name of the chosen method.
    recommendation_ : Recommendation or None
        What the recommender predicted, and the nearest benchmark data sets
        (``choice="recommend"``).
    meta_features_ : dict or None
        :func:`meta_features` of X (``choice="recommend"``).
    params_ : dict
        Its parameters (its ``n_clusters`` among the candidate scales), with
        ``standardize``.
    n_clusters_ : int
        K, the estimated (or given) number of clusters of the criterion.
    n_features_to_select_ : int
        The number of selected features.
    count_note_ : str or None
        Why the count differs from the curve's suggestion, when it does.
    scale_spread_ : float
        :func:`scale_spread` of X.
    ranking_ : ndarray of shape (n_features,)
        The chosen configuration's ranking (1 = best).
    scores_ : ndarray of shape (n_features,)
        Its scores (higher is better).
    candidates_ : list of dict
        Every configuration with its mean z-score.
    curve_ : FeatureCountCurve or None
        The feature-count curve (when the count was "auto").
    verdict_ : Verdict or None
        The chosen selection against random subsets, with its stability (None
        with ``verdict=False`` or when every feature is selected).
    selector_ : selector
        The chosen fitted selector.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of str
        Names of the features seen during fit, when X has string column names.

    See Also
    --------
    select_features : Fit an AutoSelector and return it.
    assess_selection : The verdict for a selection of your own.

    Notes
    -----
    ``fit(X)`` does, in order:

    1. K = :func:`estimate_n_clusters` (eigengap of the normalised 10-NN
       Laplacian), unless given.
    2. The method: with ``choice="recommend"``, :class:`MethodRecommender`
       on :func:`meta_features` of X (the method with the largest predicted
       gain over random subsets on the 5 nearest benchmark data sets); with
       ``choice="criterion"``, every method of ``methods``.
    3. Fits each configuration of the chosen method(s) at its defaults (and,
       where its scores depend on ``n_clusters``, at each scale), with
       ``n_features_to_select`` = 10 % of d; with more than one, scores each
       by the criterion of its top k features, as a z-score against
       ``n_draws`` random subsets of size k (the same for every
       configuration), averaged over k = 2 %, 5 % and 10 % of d, and keeps
       the largest. A method whose ranking depends on the count (MCFS) is
       compared with its ranking for each count
       (:meth:`~ufsel.base.BaseSelector.fit_rankings`).
    4. The count: :func:`suggest_n_features` on the chosen ranking (the
       largest count on the plateau of its advantage over random subsets,
       never above half of d), at least :func:`smallest_testable_count`.
    5. The verdict: the chosen configuration refitted on a random half of the
       samples, its top k features against 100 random subsets on the other
       half (sequential: draws stop once the outcome at ``alpha`` is
       decided), and the stability of the chosen configuration on
       ``n_resamples`` subsamples of half the rows (at most
       :data:`STABILITY_ROWS`). A passing test gives "beats random" only
       where the recommended method's support is at least
       :data:`MIN_SUPPORT` and its predicted gain positive; otherwise "cannot
       tell" (``verdict_.cannot_tell``).

    The recommender, the count and the verdict's thresholds are judged
    leave-one-data-set-out over the 56 data sets of the development pool
    (``benchmarks/label_free/evaluate_pool.py``; the figures are in the
    guide). The verdict tests the procedure on samples it has not seen, so the
    chance agreements of one sample do not count for it (on pure noise it
    says "NO better"). Small work (k-means on a row sample) runs on one
    thread (:mod:`ufsel.utils._threads`).

    Examples
    --------
    >>> from ufsel import AutoSelector
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, _, informative = make_planted_clusters(random_state=0)
    >>> sel = AutoSelector(n_resamples=0).fit(X)
    >>> sel.verdict_.test.p_value <= 0.05
    True
    """

    _parameter_constraints: dict = {
        "n_features_to_select": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="right"),
        ],
        "n_clusters": [StrOptions({"auto"}), Interval(Integral, 2, None, closed="left")],
        "methods": [list, tuple, None],
        "method_params": [dict, None],
        "choice": [StrOptions({"recommend", "criterion"})],
        "recommender_table": [str, os.PathLike, None],
        "candidate_n_clusters": [StrOptions({"scales", "estimate"})],
        "standardize": [StrOptions({"auto"}), "boolean"],
        "criterion": [StrOptions(set(CRITERIA))],
        "n_draws": [Interval(Integral, 2, None, closed="left")],
        "n_resamples": [Interval(Integral, 0, None, closed="left")],
        "alpha": [Interval(RealNotInt, 0, 1, closed="neither")],
        "random_state": ["random_state"],
        "verdict": ["boolean"],
        "verbose": ["verbose"],
    }

    def __init__(self, n_features_to_select="auto", *, n_clusters="auto", methods=None,
                 choice="recommend", recommender_table=None, candidate_n_clusters="scales", standardize="auto",
                 method_params=None, criterion=DEFAULT_CRITERION, n_draws=20, n_resamples=10,
                 alpha=0.05, verdict=True, random_state=0, verbose=0):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.methods = methods
        self.choice = choice
        self.recommender_table = recommender_table
        self.candidate_n_clusters = candidate_n_clusters
        self.method_params = method_params
        self.verdict = verdict
        self.standardize = standardize
        self.criterion = criterion
        self.n_draws = n_draws
        self.n_resamples = n_resamples
        self.alpha = alpha
        self.random_state = random_state
        self.verbose = verbose

    #: Called with a short description of each step (the CLI's progress line).
    _progress = None

    def _log(self, level, msg):
        if self._progress is not None:
            self._progress(msg)
        if self.verbose >= level:
            print(f"[AutoSelector] {msg}", flush=True)

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Choose and fit the selection on X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The data; no labels are used.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted selector.
        """
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, order="F",
                          ensure_min_samples=4, ensure_min_features=2)
        self._check_memory(X)
        # the cluster-count estimate and the graph-based candidates search X's
        # neighbours once
        with reuse_neighbor_searches():
            return self._fit(X)

    def _check_memory(self, X):
        """Refuse X before any work when no candidate method fits within ``max_fit_bytes``.

        Each candidate's fit checks its own estimate again (and a candidate that does
        not fit is left out of the comparison); this refuses at once, with the
        cheapest candidate's one-line :class:`~ufsel.exceptions.MemoryLimitError`,
        what would otherwise fail only after the cluster-count estimate.
        """
        K = self.n_clusters if self.n_clusters != "auto" else 5
        refusals = []
        for name in self.methods or DEFAULT_METHODS:
            cls = get_selector(name)  # raises with the valid options for an unknown name
            est = cls(**{**candidate_params(cls, K), **(self.method_params or {})})
            try:
                check_fit_memory(est, X)
            except MemoryLimitError as exc:
                refusals.append((estimate_fit_memory(est, X).total, exc))
            else:
                return
        raise min(refusals, key=lambda r: r[0])[1]

    def _fit(self, X):
        n, d = X.shape
        rng = check_random_state(self.random_state)
        seed = lambda: int(rng.randint(np.iinfo(np.int32).max))  # noqa: E731
        self.scale_spread_ = scale_spread(X)
        units_differ = self.scale_spread_ > UNITS_SPREAD
        std = self.standardize is True or (self.standardize == "auto" and units_differ)
        if units_differ and not std and self.method_params is None:
            warnings.warn(
                f"The features' ranges differ by a factor of {self.scale_spread_:.3g} (90th over "
                "10th percentile): distances, k-means and most methods follow the widest "
                "columns. Standardise X (standardize=True, or --standardize) unless the "
                "units are comparable.", UserWarning, stacklevel=3)
        Xw = standardized(X) if std else X
        methods = list(self.methods or DEFAULT_METHODS)
        given_K = (self.method_params or {}).get("n_clusters")
        single = (len(methods) == 1 and self.choice == "criterion"
                  and (given_K is not None or self.candidate_n_clusters == "estimate"
                       or not get_selector_tags(get_selector(methods[0])()).uses_n_clusters))
        auto_count = self.n_features_to_select == "auto"
        needs_K = (not single or auto_count or self.verdict
                   or get_selector_tags(get_selector(methods[0])()).uses_n_clusters)
        self.n_clusters_ = None
        if self.n_clusters != "auto":
            self.n_clusters_ = int(self.n_clusters)
        elif given_K is not None:
            self.n_clusters_ = int(given_K)
        elif needs_K:
            self._log(2, "estimating the number of clusters")
            self.n_clusters_ = estimate_n_clusters(Xw, random_state=seed())
            self._log(1, f"estimated n_clusters = {self.n_clusters_} (eigengap)")
        K = None if self.n_clusters_ is None else min(self.n_clusters_, n - 1)
        f = None
        if not single or auto_count:
            f = make_criterion(Xw, self.criterion, n_clusters=K,
                               rng=np.random.RandomState(seed()))
        self.recommendation_ = self.meta_features_ = None
        if self.choice == "recommend":
            for m in self.methods or ():
                get_selector(m)  # raises with the valid options for an unknown name
            self._log(2, "meta-features and the recommender")
            self.meta_features_ = meta_features(X, random_state=seed())
            rec = MethodRecommender(
                None if self.methods is None else [m.lower() for m in self.methods],
                table=None if self.recommender_table is None
                else read_training_table(self.recommender_table))
            allowed = [m for m in rec.methods if not (std and m == "maxvariance")]
            self.recommendation_ = rec.recommend(self.meta_features_, allowed)
            self._log(1, self.recommendation_.summary())
            methods = [self.recommendation_.method]
        counts = _comparison_counts(d)
        _, name, params, est, ranking = self._choose(Xw, f, K, counts, std, methods,
                                                     null_seed=None if single else seed())
        self.method_ = name
        self.params_ = {**params, "standardize": std}
        self._log(1, f"chose {name} with {self.params_}")
        self.count_note_ = None
        self.curve_ = None
        if auto_count:
            self._log(2, "the feature-count curve")
            self.curve_ = feature_count_curve(
                f, ranking, default_counts(d), criterion=self.criterion,
                tolerance=DEFAULT_TOLERANCE, n_se=DEFAULT_N_SE, prefer=DEFAULT_PREFER,
                n_draws=self.n_draws, rng=np.random.RandomState(seed()))
            k = self.curve_.n_features
            k_min = smallest_testable_count(d, alpha=self.alpha)
            if k < k_min < d:  # (with too few features for any count, the verdict says so)
                self.count_note_ = (
                    f"the feature-count curve suggests {k} (its advantage over random subsets "
                    f"is largest there), fewer than the random-subset test can judge; kept "
                    f"{k_min}, the smallest count it can")
                k = k_min
            self.n_features_to_select_ = k
        else:
            self.n_features_to_select_ = self._resolve_n_features(d)
        fitted_at = getattr(est, "n_features_to_select_", None)  # (None after fit_rankings)
        est.set_params(n_features_to_select=self.n_features_to_select_)
        if get_selector_tags(est).scores_depend_on_count and fitted_at != self.n_features_to_select_:
            est.fit(Xw)  # the chosen count's own ranking (MCFS: LARS stopped at that cardinality)
        self.selector_ = est
        self.scores_ = est.scores_.copy()
        self.ranking_ = est.ranking_.copy()
        self._log(1, f"n_features_to_select = {self.n_features_to_select_}")
        self.verdict_ = None
        if self.verdict and self.n_features_to_select_ < d:
            self.verdict_ = self._verdict(Xw, est, rng=rng)
            self._log(1, self.verdict_.summary())
        return self

    def record(self):
        """What was chosen and why, as plain values (``ufsel select``'s sidecar).

        Returns
        -------
        record : dict
            The verdict (:meth:`Verdict.to_dict`, or ``"verdict": None``), the
            ``candidates`` and their z-scores, ``criterion_n_clusters``,
            ``scale_spread``, ``count_note``, the ``n_features_curve`` (when the
            count was "auto") and the ``recommendation`` with the
            ``meta_features`` (``choice="recommend"``).
        """
        out = {"verdict": None} if self.verdict_ is None else self.verdict_.to_dict()
        out["candidates"] = [{**{key: c.get(key) for key in ("method", "standardize",
                                                             "z_score", "error")},
                              "n_clusters": c.get("params", {}).get("n_clusters")}
                             for c in self.candidates_]
        if self.n_clusters_ is not None:
            out["criterion_n_clusters"] = int(self.n_clusters_)
        out.update(scale_spread=float(self.scale_spread_), count_note=self.count_note_)
        if self.curve_ is not None:
            c = self.curve_
            out["n_features_curve"] = {
                "rule": f"ufsel.model_selection.suggest_n_features (the {c.prefer} counts on "
                        f"the plateau of the excess over random subsets, within {c.n_se:g} "
                        f"standard errors or {c.tolerance:g} of the best; criterion "
                        f"{c.criterion})",
                "counts": c.counts, "values": c.values, "random_mean": c.null_mean,
                "excess_over_random": c.excess}
        if self.recommendation_ is not None:
            out["recommendation"] = {**self.recommendation_.to_dict(),
                                     "meta_features": dict(self.meta_features_)}
        return out

    def _choose(self, Xw, f, K, counts, std, methods, *, null_seed):
        """Fit every candidate configuration; the one with the largest mean z-score (a
        single configuration is fitted and kept without scoring)."""
        n, d = Xw.shape
        scales = ((K,) if self.candidate_n_clusters == "estimate" or K is None
                  else agreement_scales(K, min(n, MAX_CRITERION_SAMPLES)))
        configs = []
        for name in methods:
            cls = get_selector(name)  # raises with the valid options for an unknown name
            if std and name == "maxvariance" and len(methods) > 1:
                continue  # every variance is 1 on standardised data
            uses_K = get_selector_tags(cls()).uses_n_clusters
            user = dict(self.method_params or {})
            for Kc in (scales if uses_K and "n_clusters" not in user else (K,)):
                configs.append((name, cls, {**candidate_params(cls, Kc), **user}))
        nulls = {}
        if len(configs) > 1:
            null_rng = np.random.RandomState(null_seed)
            with thread_limit(0):  # k-means on a row sample of a few columns: a small problem
                for k in counts:  # every subset of size k where there are at most n_draws
                    subsets, exact = null_subsets(null_rng, d, int(k), self.n_draws)
                    nulls[int(k)] = (np.array([f(c) for c in subsets]), exact)
        best = None
        self.candidates_ = []
        top = int(counts[-1]) if self.n_features_to_select == "auto" else None
        for name, cls, params in configs:
            self._log(3, f"fitting candidate {name} {params}")
            if top is None:
                est = cls(**params, n_features_to_select=self.n_features_to_select)
            else:
                est = cls(**params, n_features_to_select=top)
            try:  # (each fit runs under the thread policy, in the base class)
                if len(configs) > 1 and get_selector_tags(est).scores_depend_on_count:
                    rankings = est.fit_rankings(Xw, counts)
                else:
                    est.fit(Xw)
                    rankings = {int(k): est.ranking_ for k in counts}
            except (ValueError, ArithmeticError) as exc:
                if len(configs) == 1:
                    raise
                self._log(2, f"{name} ({params}) failed: {exc}")
                self.candidates_.append({"method": name.lower(), "standardize": std,
                                         "z_score": None, "params": params,
                                         "error": str(exc)})
                continue
            z = None
            if nulls:
                with thread_limit(0):
                    zs = [summarize_null(f(np.argsort(rankings[int(k)], kind="stable")[:k],
                                           repeats=ESTIMATE_REPEATS),
                                         *nulls[int(k)])[2] for k in counts]
                z = float(np.mean(zs))
                self._log(2, f"{name} ({params}): mean z = {z:.2f}")
            self.candidates_.append({"method": name.lower(), "standardize": std,
                                     "z_score": z, "params": params})
            if best is None or (z is not None and z > best[0]):
                best = (-np.inf if z is None else z, name.lower(), params, est,
                        rankings[int(counts[-1])])
        if best is None:
            raise ValueError("AutoSelector: every candidate method failed on X; see "
                             "candidates_ for the errors.")
        return best

    def _verdict(self, Xw, est, *, rng):
        k = self.n_features_to_select_
        self._log(2, "the verdict: held-out random-subset test and stability")
        n, d = Xw.shape
        verdict = assess_selection(Xw, self.ranking_ <= k, estimator=est, method=type(est).__name__,
                                   n_clusters=self.n_clusters_, criterion=self.criterion,
                                   n_draws=VERDICT_DRAWS, alpha=self.alpha,
                                   n_resamples=self.n_resamples,
                                   stability_subsample=min(0.5, STABILITY_ROWS / n),
                                   held_out=n >= HELD_OUT_MIN_SAMPLES, random_state=rng)
        rec = self.recommendation_
        if verdict.beats_random and rec is not None:
            gain = rec.predicted_gain[rec.method]
            if rec.support < MIN_SUPPORT or gain <= MIN_PREDICTED_GAIN:
                verdict = dataclasses.replace(verdict, beats_random=False, cannot_tell=(
                    f"on the benchmark data sets nearest to these data, {rec.method} beat "
                    f"random subsets on only {100 * rec.support:.0f} % (by weight; "
                    f"predicted gain {100 * gain:+.1f} ACC points), too weak a record to "
                    "trust the label-free test alone"))
        return verdict


def select_features(X, **kwargs):
    """Choose the method, K and the count without labels, and fit the selection.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data; no labels are used.
    **kwargs : dict
        :class:`AutoSelector`'s parameters (``random_state`` defaults to 0, as
        in ``ufsel select``).

    Returns
    -------
    selector : AutoSelector
        The fitted selector, with its ``verdict_``.

    Examples
    --------
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, _, informative = make_planted_clusters(random_state=0)
    >>> sel = select_features(X, n_resamples=0)
    >>> sel.verdict_.test.p_value <= 0.05
    True
    """
    return AutoSelector(**kwargs).fit(X)
