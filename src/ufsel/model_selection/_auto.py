"""AutoSelector: method, number of clusters and feature count chosen without labels."""

from __future__ import annotations

import dataclasses
import math
import warnings
from numbers import Integral

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import HasMethods, Interval, RealNotInt, StrOptions
from sklearn.utils.validation import validate_data

from .._registry import get_selector
from ..base import RankingSelectorMixin
from ..datasets._anndata import anndata_matrix, is_anndata
from ..exceptions import MemoryLimitError
from ..graph import reuse_neighbor_searches
from ..utils import check_fit_memory, estimate_fit_memory
from ._criteria import CRITERIA, DEFAULT_CRITERION, make_criterion, standardized
from ._feature_count import (
    DEFAULT_N_SE,
    DEFAULT_PREFER,
    DEFAULT_TOLERANCE,
    default_counts,
    feature_count_curve,
)
from ._n_clusters import estimate_n_clusters
from ._random_subset import _enumerable
from ._recommend import MethodRecommender, meta_features
from ._relevance import feature_relevance
from ._route import (
    CHEAP_METHODS,
    DEFAULT_METHODS,
    PROVISIONAL_METHODS,
    CandidateSpec,
    CompareAll,
    CountDecision,
    CountRule,
    DataDescription,
    HandRule,
    Named,
    Shortlist,
    gather_evidence,
    scores_depend_on_count,
    uses_n_clusters,
)
from ._verdict import VerdictGate, assess_selection

__all__ = ["AutoSelector", "select_features", "route_selector", "DEFAULT_METHODS",
           "scale_spread", "smallest_testable_count", "standardized"]

#: Fractions of d at which candidates are compared (their z-scores averaged).
COMPARISON_RATIOS = (0.02, 0.05, 0.1)

#: Above this :func:`scale_spread`, the features are taken to be in different units.
UNITS_SPREAD = 30.0

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


def _comparison_counts(d):
    return np.unique(np.clip(np.ceil(np.asarray(COMPARISON_RATIOS) * d).astype(int), 1,
                             max(d - 1, 1)))


class AutoSelector(RankingSelectorMixin, BaseEstimator):
    """Unsupervised feature selection with the method, K and the count chosen without labels.

    The default route: the recommender proposes, the data decide. A
    :class:`MethodRecommender` learned on 56 benchmark data sets proposes a
    shortlist; the shortlist and the cheap filters are fitted on X, each judged
    by how many *relevant* features (those whose values differ between the
    clusters of the other features) its top features hold and by a label-free
    criterion against random subsets; the prior counts for less the further X
    lies from the benchmark data sets. The count is the number of relevant
    features when they are few, else the feature-count curve's suggestion; the
    verdict (:class:`Verdict`) tests the selection on held-out rows. ``ufsel
    select`` without ``--method`` runs it.

    Read more in the :ref:`User Guide <label-free>`.

    Parameters
    ----------
    n_features_to_select : "auto", int or float in (0, 1], default="auto"
        "auto": the count of :class:`CountRule` (raised to the smallest count
        the verdict's test can judge, :func:`smallest_testable_count`); an int
        is a count, a float a fraction of the features.
    n_clusters : "auto" or int >= 2, default="auto"
        K, the coarsest scale of the criterion; "auto" estimates it
        (:func:`estimate_n_clusters`).
    methods : list of str, default=None
        Registry names of the candidate methods; None means every method of
        the recommender (``choice="recommend"``; a provisional method such as
        EVSC only when named) or :data:`DEFAULT_METHODS`
        (``choice="criterion"``).
    choice : {"recommend", "criterion"}, default="recommend"
        The choice strategy: "recommend" (:class:`Shortlist`: the
        recommender's shortlist and the cheap filters, prior and evidence
        combined); "criterion" (:class:`CompareAll`: every candidate, by the
        evidence alone); a single method with ``choice="criterion"`` and its K
        fixed is fitted and kept (:class:`Named`).
    recommender : MethodRecommender or None, default=None
        The recommender; None builds one from the table shipped with ufsel
        (``benchmarks/label_free/train_recommender.py`` writes a new one,
        :func:`read_training_table` reads it).
    count_rule : CountRule or None, default=None
        The rule of the count when ``n_features_to_select="auto"``; None is
        ``CountRule()``.
    verdict_gate : VerdictGate or None, default=None
        The rule that turns the verdict's tests into its outcome; None is
        ``VerdictGate(alpha=alpha)``.
    scorer : object or None, default=None
        Chooses among the candidates: ``scorer.choose(evidence, description,
        recommendation)`` returns a :class:`ScoredChoice` (whose probability
        the verdict records) and ``scorer.to_dict()`` describes it; None is
        :class:`HandRule` (relevant features where they are few, then the
        recommender's predicted gain, then the z-score). It sees every
        candidate, a single one too (a named method's, without z-score).
    candidate_n_clusters : {"scales", "estimate"}, default="scales"
        With ``choice="criterion"``, the ``n_clusters`` of a candidate whose
        scores depend on it (MCFS): each scale of the criterion (K, 2K, 4K,
        ... up to sqrt(m), m = min(n, 1000)), or K alone. The shortlist uses
        K alone.
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
        and ``choice="criterion"``.
    criterion : {"multiscale_agreement", "cluster_agreement", \
            "knn_preservation", "reconstruction"}, default="multiscale_agreement"
        The label-free criterion of a subset (see :func:`random_subset_test`).
    n_draws : int, default=20
        Random subsets per count for comparing candidates and for the count.
    n_resamples : int, default=10
        Refits on subsamples for the stability (0 skips it).
    alpha : float, default=0.05
        Level of the verdict's tests.
    verdict : bool, default=True
        Judge the selection (``verdict_``); False skips the tests and the
        stability.
    random_state : int, RandomState or None, default=0
        Seeds every step, each from its own stream
        (``numpy.random.SeedSequence(random_state).spawn``), so that changing
        one option leaves the other steps' draws alone; the same seed gives the
        same result whatever the thread count. The candidates that take a
        seed get an integer ``random_state`` itself (so that the chosen
        method's ranking is the one ``Method(random_state=random_state)``
        gives), else one drawn from their own stream. :func:`select_features` and
        ``ufsel select`` use 0 too.
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
    description_ : DataDescription
        The *describe* step: the working data's standardisation, K and the
        relevant features.
    evidence_ : list of Evidence
        Every candidate configuration with its prior, z-score, relevant
        features among its top and why it was unusable, if it was.
    params_ : dict
        The chosen configuration's parameters, with ``standardize``.
    n_clusters_ : int or None
        K, the estimated (or given) number of clusters of the criterion.
    n_features_to_select_ : int
        The number of selected features.
    count_ : CountDecision
        The count and what decided it.
    count_note_ : str or None
        ``count_.note``: why the count is what it is, when it is not simply the
        feature-count curve's or the user's.
    choice_ : ScoredChoice
        The scorer's choice, its scores and its probability.
    strategy_ : Shortlist, CompareAll or Named
        The choice strategy.
    scale_spread_ : float
        :func:`scale_spread` of X.
    ranking_ : ndarray of shape (n_features,)
        The chosen configuration's ranking (1 = best).
    scores_ : ndarray of shape (n_features,)
        Its scores (higher is better).
    candidates_ : list of dict
        ``evidence_`` as plain values.
    curve_ : FeatureCountCurve or None
        The feature-count curve (when the count was "auto" and the relevant
        features did not decide it).
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
    ``fit(X)`` is a fixed skeleton of steps, each with its own record
    (:meth:`record`):

    1. **Describe**: standardise when the units differ; K =
       :func:`estimate_n_clusters` unless given; the criterion on a row
       sample; the relevant features (:func:`feature_relevance`: a feature's
       values differ between the k-means clusters of a random half of the
       *other* features, F test, Bonferroni at 1 %); the meta-features.
    2. **Candidates and evidence**: the strategy's configurations, each
       fitted with its top features scored (mean z-score of the criterion
       against ``n_draws`` random subsets at 2, 5 and 10 % of d) and the
       relevant features among its top ``n_relevant`` counted. A fit whose
       scores are all tied, that failed or did not converge is never chosen.
    3. **Choice**: the strategy's (:class:`Shortlist` by default: built after
       the meta-features), through the scorer (:class:`HandRule` by default),
       recorded as a :class:`ScoredChoice`.
    4. **Count**: :class:`CountRule` (the feature-count curve only when the
       relevant features do not decide it); the chosen configuration is
       refitted at the count where its scores depend on it.
    5. **Verdict**: the chosen configuration refitted on a random half of
       the rows, its top k features tested on the other half by the
       agreement test and the relevance test, decided by
       :class:`VerdictGate`; the stability on ``n_resamples`` subsamples
       (not reported when the cut falls between tied scores).

    A warning raised inside the route is passed on once. Small work (k-means
    on a row sample) runs on one thread (:mod:`ufsel.utils._threads`).

    Examples
    --------
    >>> from ufsel import AutoSelector
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, _, informative = make_planted_clusters(random_state=0)
    >>> sel = AutoSelector(n_resamples=0).fit(X)
    >>> sel.verdict_.outcome
    'beats random'
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
        "recommender": [MethodRecommender, None],
        "count_rule": [CountRule, None],
        "verdict_gate": [VerdictGate, None],
        "scorer": [HasMethods(["choose", "to_dict"]), None],
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
                 choice="recommend", recommender=None, count_rule=None, verdict_gate=None,
                 scorer=None, candidate_n_clusters="scales", standardize="auto",
                 method_params=None, criterion=DEFAULT_CRITERION, n_draws=20, n_resamples=10,
                 alpha=0.05, verdict=True, random_state=0, verbose=0):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.methods = methods
        self.choice = choice
        self.recommender = recommender
        self.count_rule = count_rule
        self.verdict_gate = verdict_gate
        self.scorer = scorer
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
        X : {array-like, sparse matrix, anndata.AnnData} of shape (n_samples, n_features)
            The data; no labels are used. An AnnData gives its ``X`` and its
            ``var_names`` as the feature names (``feature_names_in_``); for a
            layer or ``.raw``, pass
            ``ufsel.datasets.anndata_matrix(adata, layer=...)[0]``.
        y : None
            Ignored.

        Returns
        -------
        self : object
            The fitted selector.
        """
        names = None
        if is_anndata(X):
            X, names = anndata_matrix(X)
        X = validate_data(self, X, accept_sparse=("csr", "csc"), dtype=np.float64, order="F",
                          ensure_min_samples=4, ensure_min_features=2)
        if names is not None:
            self.feature_names_in_ = names
        for m in self.methods or ():
            get_selector(m)  # raises with the valid options for an unknown name
        # before any work, refused when none of the methods a strategy may fit fits at the
        # smallest K; the candidates that will be fitted are checked again at their K
        self._check_memory(X, self._candidate_spec(None).configurations(
            self._certain_methods(), (self._given_n_clusters() or 2,)))
        # the cluster-count estimate and the graph-based candidates search X's neighbours
        # once; a warning repeated inside the route is passed on once
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with reuse_neighbor_searches():
                self._fit(X)
        seen = set()
        for w in caught:
            key = (w.category, str(w.message))
            if key not in seen:
                seen.add(key)
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return self

    def _fit(self, X):
        """The route: one step per line, each recording what it decided."""
        rng = self._streams()
        data = self.description_ = self._describe(X, rng)
        strategy = self.strategy_ = self._strategy(X, data, rng)
        configs = strategy.configurations(self._candidate_spec(rng), data)
        self._check_memory(data.Xw, configs)
        self.evidence_ = self._evidence(configs, data, strategy, rng)
        self.choice_ = self._choose(strategy, data)
        self.count_ = self._count(data, rng)
        self.selector_ = self._refit(data)
        self.verdict_ = self._judge(data, rng)
        return self

    # ------------------------------------------------------------------ the policies
    def _count_rule(self):
        return CountRule() if self.count_rule is None else self.count_rule

    def _verdict_gate(self):
        return VerdictGate(alpha=self.alpha) if self.verdict_gate is None else self.verdict_gate

    def _scorer(self):
        return HandRule() if self.scorer is None else self.scorer

    def _given_n_clusters(self):
        """K given by the user (``n_clusters`` or ``method_params["n_clusters"]``), or None."""
        if self.n_clusters != "auto":
            return int(self.n_clusters)
        given = (self.method_params or {}).get("n_clusters")
        return None if given is None else int(given)

    def _named_method(self):
        """The method of the :class:`Named` strategy (one method, its K fixed), or None."""
        methods = [m.lower() for m in (self.methods or ())]
        if self.choice != "criterion" or len(methods) != 1:
            return None
        if ((self.method_params or {}).get("n_clusters") is not None
                or self.candidate_n_clusters == "estimate"
                or not uses_n_clusters(get_selector(methods[0])())):
            return methods[0]
        return None

    def _certain_methods(self):
        """Every method a strategy may fit here: the named ones, else the default pools."""
        if self.methods:
            return [m.lower() for m in self.methods]
        return list(dict.fromkeys(CHEAP_METHODS + DEFAULT_METHODS))

    def _candidate_spec(self, rng):
        rs = self.random_state
        if isinstance(rs, Integral) or rng is None:
            seed = int(rs) if isinstance(rs, Integral) else 0
        else:
            seed = int(rng["candidates"].randint(2**31 - 1))
        return CandidateSpec(
            methods=tuple(m.lower() for m in self.methods) if self.methods else None,
            k_scales=self.candidate_n_clusters, params=dict(self.method_params or {}),
            random_state=seed)

    def _check_memory(self, X, configs):
        """Refuse X when none of ``configs`` fits within ``max_fit_bytes``.

        Each candidate's fit checks its own estimate again (and a candidate that does
        not fit is left out of the comparison); this refuses at once, with the
        cheapest candidate's one-line :class:`~ufsel.exceptions.MemoryLimitError`.
        """
        refusals = []
        for _, cls, params in configs:
            est = cls(**params)
            try:
                check_fit_memory(est, X)
            except MemoryLimitError as exc:
                refusals.append((estimate_fit_memory(est, X).total, exc))
            else:
                return
        if refusals:
            raise min(refusals, key=lambda r: r[0])[1]

    # ------------------------------------------------------------------ the steps
    def _streams(self):
        """One random stream per step, so that one step's draws never shift another's."""
        rs = self.random_state
        entropy = (int(rs) if isinstance(rs, Integral) else
                   int(check_random_state(rs).randint(np.iinfo(np.int32).max)))
        names = ("describe", "relevance", "meta", "evidence", "count", "verdict",
                 "candidates")
        seqs = np.random.SeedSequence(entropy).spawn(len(names))
        return {n: np.random.RandomState(s.generate_state(1)[0]) for n, s in zip(names, seqs)}

    def _describe(self, X, rng):
        """Standardise when the units differ; K; the criterion; the relevant features."""
        n, d = X.shape
        spread = scale_spread(X)
        units_differ = spread > UNITS_SPREAD
        std = self.standardize is True or (self.standardize == "auto" and units_differ)
        if self.standardize is True:
            scaling = (f"standardised to unit variance, as asked (the features' ranges "
                       f"differ {spread:.3g}-fold)")
        elif self.standardize is False:
            scaling = (f"used as given, as asked (the features' ranges differ "
                       f"{spread:.3g}-fold)")
        elif std:
            scaling = (f"standardised to unit variance: the features' ranges differ "
                       f"{spread:.3g}-fold (above {UNITS_SPREAD:g}), so their units do")
        else:
            scaling = (f"used as given: the features' ranges differ {spread:.3g}-fold (at "
                       f"most {UNITS_SPREAD:g}), so they share one unit")
        if units_differ and not std and self.method_params is None:
            warnings.warn(
                f"The features' ranges differ by a factor of {spread:.3g} (90th over "
                "10th percentile): distances, k-means and most methods follow the widest "
                "columns. Standardise X (standardize=True, or --standardize) unless the "
                "units are comparable.", UserWarning, stacklevel=4)
        data = DataDescription(Xw=standardized(X) if std else X, standardized=std,
                               scale_spread=spread, scaling=scaling)
        self._log(1, f"features {scaling}")
        auto_count = self.n_features_to_select == "auto"
        named = self._named_method()
        needs_K = (named is None or auto_count or self.verdict
                   or uses_n_clusters(get_selector(named)()))
        data.n_clusters = self._given_n_clusters()
        if data.n_clusters is None and needs_K:
            self._log(2, "estimating the number of clusters")
            data.n_clusters = int(estimate_n_clusters(data.Xw, random_state=rng["describe"]))
            self._log(1, f"estimated n_clusters = {data.n_clusters} (eigengap)")
        K = None if data.n_clusters is None else min(data.n_clusters, n - 1)
        data.n_clusters = K
        self.scale_spread_ = spread
        self.n_clusters_ = K
        if named is None or auto_count:
            data.criterion = make_criterion(data.Xw, self.criterion, n_clusters=K,
                                            rng=rng["describe"])
            if K is not None and K >= 2:
                self._log(2, "the relevant features")
                data.relevance = feature_relevance(data.criterion.fn.Xr, K,
                                                   random_state=rng["relevance"])
                self._log(1, f"{data.n_relevant} of {d} features are relevant")
        return data

    def _strategy(self, X, data, rng):
        """The choice strategy; the shortlist after the meta-features and the recommendation."""
        self.recommendation_ = self.meta_features_ = None
        named = self._named_method()
        if named is not None:
            return Named(named)
        if self.choice == "criterion":
            return CompareAll()
        self._log(2, "meta-features and the recommender")
        self.meta_features_ = data.meta_features = meta_features(
            X, random_state=int(rng["meta"].randint(2**31 - 1)))
        rec = self.recommender if self.recommender is not None else MethodRecommender()
        user = None if self.methods is None else {m.lower() for m in self.methods}
        # the recommendation is among the methods the shortlist may fit: never MaxVariance
        # on standardised data, a provisional method only when named
        allowed = [m for m in rec.methods if not (data.standardized and m == "maxvariance")
                   and (m not in PROVISIONAL_METHODS or (user is not None and m in user))
                   and (user is None or m in user)]
        self.recommendation_ = rec.recommend(self.meta_features_, allowed)
        self._log(1, self.recommendation_.summary())
        return Shortlist(self.recommendation_, rec.similarity(self.meta_features_))

    def _evidence(self, configs, data, strategy, rng):
        """Fit every configuration; score each against random subsets and the relevant
        features."""
        d = data.Xw.shape[1]
        self._comparison_counts = counts = _comparison_counts(d)
        auto_count = self.n_features_to_select == "auto"
        rec = self.recommendation_
        return gather_evidence(
            configs, data, counts,
            top=int(counts[-1]) if auto_count else self.n_features_to_select,
            n_draws=self.n_draws, null_rng=rng["evidence"],
            compare=strategy.compares and len(configs) > 1, log=self._log,
            priors=None if rec is None else rec.predicted_gain)

    def _choose(self, strategy, data):
        """The scorer's choice among the usable candidates (a :class:`ScoredChoice`)."""
        choice = strategy.choose(self.evidence_, data, self._scorer())
        chosen = choice.chosen
        std = data.standardized
        self.candidates_ = [{**e.to_dict(), "standardize": std} for e in self.evidence_]
        self.method_ = chosen.method
        self.params_ = {**chosen.params, "standardize": std}
        self._log(1, f"chose {chosen.method} with {self.params_}")
        return choice

    def _count(self, data, rng):
        """How many features to keep (a :class:`CountDecision`)."""
        d = data.Xw.shape[1]
        self.curve_ = None
        if self.n_features_to_select != "auto":
            k = self._resolve_n_features(d)
            note = (None if isinstance(self.n_features_to_select, Integral)
                    else f"the fraction {self.n_features_to_select:g} of the {d} features")
            decision = CountDecision(k=k, decided_by="user", note=note)
        else:
            rule = self.count_rule_ = self._count_rule()
            curve_count = None
            if rule.needs_curve(data.n_relevant, d, few_relevant=data.few_relevant):
                self._log(2, "the feature-count curve")
                ranking = self.choice_.chosen.rankings[int(self._comparison_counts[-1])]
                self.curve_ = feature_count_curve(
                    data.criterion, ranking, default_counts(d), criterion=self.criterion,
                    tolerance=DEFAULT_TOLERANCE, n_se=DEFAULT_N_SE, prefer=DEFAULT_PREFER,
                    n_draws=self.n_draws, rng=rng["count"])
                curve_count = self.curve_.n_features
            decision = rule.choose(curve_count, data.n_relevant, d,
                                   smallest_testable_count(d, alpha=self.alpha),
                                   few_relevant=data.few_relevant)
        self.n_features_to_select_ = int(decision.k)
        self.count_note_ = decision.note
        self._log(1, f"n_features_to_select = {decision.k} ({decision.decided_by})")
        return decision

    def _refit(self, data):
        """The chosen configuration at the count (refitted where its scores depend on it)."""
        est = self.choice_.chosen.estimator
        fitted_at = getattr(est, "n_features_to_select_", None)  # (None after fit_rankings)
        est.set_params(n_features_to_select=self.n_features_to_select_)
        if scores_depend_on_count(est) and fitted_at != self.n_features_to_select_:
            est.fit(data.Xw)  # the chosen count's own ranking (MCFS: LARS stopped there)
        self.scores_ = est.scores_.copy()
        self.ranking_ = est.ranking_.copy()
        return est

    def _judge(self, data, rng):
        """The verdict: held-out tests and stability, decided by the gate (or None)."""
        k = self.n_features_to_select_
        n, d = data.Xw.shape
        if not self.verdict or k >= d:
            return None
        self._log(2, "the verdict: held-out tests and stability")
        est = self.selector_
        order = np.argsort(self.ranking_, kind="stable")
        tied = bool(np.isclose(self.scores_[order[k - 1]], self.scores_[order[k]],
                               rtol=1e-12, atol=0.0))
        rec = self.recommendation_
        if rec is not None and self.method_ != rec.method:
            rec = None  # the record on the nearest data sets is the recommended method's
        verdict = assess_selection(
            data.Xw, self.ranking_ <= k, estimator=est, method=type(est).__name__,
            n_clusters=self.n_clusters_, criterion=self.criterion, n_draws=VERDICT_DRAWS,
            alpha=self.alpha, n_resamples=0 if tied else self.n_resamples,
            stability_subsample=min(0.5, STABILITY_ROWS / n),
            held_out=n >= HELD_OUT_MIN_SAMPLES, recommendation=rec,
            gate=self._verdict_gate(), probability=self.choice_.probability,
            random_state=rng["verdict"])
        if tied and self.n_resamples > 0:
            verdict = dataclasses.replace(verdict, stability_note=(
                "the selection's cut falls between features of equal score, so which of them "
                "is kept is the column order, not the data; ties are not stability"))
        self._log(1, verdict.summary())
        return verdict

    def __str__(self):
        """The estimator's repr and, once fitted, what was chosen and the verdict.

        ``print(select_features(X))`` shows the answer: the method, K, the count and
        the verdict's summary.
        """
        text = repr(self)
        if not hasattr(self, "ranking_"):
            return text
        lines = [text, f"method: {self.method_}, K = {self.n_clusters_}, "
                       f"{self.n_features_to_select_} of {self.n_features_in_} features "
                       f"(features {self.description_.scaling})",
                 f"count: {self.n_features_to_select_}, decided by the {self.count_.decided_by}"
                 + (f" ({self.count_.note})" if self.count_.note else "")]
        lines.append("verdict: " + ("none (every feature is selected, or verdict=False)"
                                    if self.verdict_ is None else
                                    f"{self.verdict_.outcome}. {self.verdict_.summary()}"))
        return "\n".join(lines)

    def record(self):
        """What was chosen and why, as plain values (``ufsel select``'s sidecar).

        Returns
        -------
        record : dict
            The verdict (:meth:`Verdict.to_dict`, or ``"verdict": None``) and the
            steps: ``describe`` (standardisation and why, K, the relevant
            features), ``standardized`` (whether the selection was made on
            standardised features), ``candidates`` (each configuration's
            evidence), ``choice`` (the strategy, the scorer and its
            :class:`ScoredChoice`), ``count`` (the :class:`CountDecision`, and
            whether the feature-count curve was computed), ``count_note``,
            ``count_rule`` and ``n_features_curve`` (when the count was "auto"),
            and the ``recommendation`` with the ``meta_features``
            (``choice="recommend"``).
        """
        out = {"verdict": None} if self.verdict_ is None else self.verdict_.to_dict()
        desc = self.description_.to_dict()
        out["describe"] = desc
        out["standardized"] = bool(self.description_.standardized)
        out["candidates"] = list(self.candidates_)
        out["choice"] = {**self.strategy_.to_dict(), "method": self.method_,
                         "scorer": self._scorer().to_dict(), **self.choice_.to_dict()}
        if self.n_clusters_ is not None:
            out["criterion_n_clusters"] = int(self.n_clusters_)
        out.update(scale_spread=float(self.scale_spread_), count_note=self.count_note_)
        out["count"] = {**self.count_.to_dict(),
                        "feature_count_curve": "computed" if self.curve_ is not None else
                        "not needed: the relevant features decide the count"
                        if self.count_.decided_by != "user" else "not needed: count given"}
        if self.n_features_to_select == "auto":
            out["count_rule"] = self.count_rule_.to_dict()
        out["n_features_curve"] = None
        if self.curve_ is not None:
            c = self.curve_
            out["n_features_curve"] = {
                "rule": f"ufsel.model_selection.suggest_n_features (the {c.prefer} counts on "
                        f"the plateau of the excess over random subsets, within {c.n_se:g} "
                        f"standard errors or {c.tolerance:g} of the best; criterion "
                        f"{c.criterion})",
                "counts": c.counts, "values": c.values, "random_mean": c.null_mean,
                "excess_over_random": c.excess, "suggested": int(c.n_features)}
        if self.recommendation_ is not None:
            out["recommendation"] = {**self.recommendation_.to_dict(),
                                     "meta_features": dict(self.meta_features_)}
        return out


def route_selector(method="auto", *, n_features_to_select="auto", n_clusters="auto",
                   method_params=None, standardize="auto", n_resamples=None, verdict=True,
                   random_state=0):
    """The :class:`AutoSelector` of ``ufsel select``: the default route, or one named method.

    The in-memory command and the large-file path (on its row sample) both decide with
    it, so that a method, K, the standardisation, the count and the verdict are decided
    the same way whatever the file's size.

    Parameters
    ----------
    method : str, default="auto"
        ``"auto"`` (the default route, :class:`Shortlist`) or a registry name
        (:class:`Named`: that method alone, at the estimated K).
    n_features_to_select : "auto", int or float, default="auto"
        As in :class:`AutoSelector`.
    n_clusters : "auto", int or None, default="auto"
        K (None is "auto").
    method_params : dict or None, default=None
        The named method's parameters.
    standardize : bool or "auto", default="auto"
        As in :class:`AutoSelector`.
    n_resamples : int or None, default=None
        Refits for the stability; None is the route's default (10) for
        ``"auto"`` and 0 for a named method.
    verdict : bool, default=True
        Judge the selection.
    random_state : int, default=0
        As in :class:`AutoSelector`.

    Returns
    -------
    AutoSelector
        Unfitted.
    """
    options = dict(n_features_to_select=n_features_to_select,
                   n_clusters="auto" if n_clusters is None else n_clusters,
                   standardize=standardize, random_state=random_state, verdict=verdict)
    if method == "auto":
        if method_params:
            raise ValueError("method_params apply to a named method, not to method='auto'.")
        if n_resamples is not None:
            options["n_resamples"] = n_resamples
    else:
        options.update(methods=[method.lower()], choice="criterion",
                       candidate_n_clusters="estimate", method_params=dict(method_params or {}),
                       n_resamples=n_resamples or 0)
    return AutoSelector(**options)


def select_features(X, **kwargs):
    """Choose the method, K and the count without labels, and fit the selection.

    Parameters
    ----------
    X : {array-like, sparse matrix, anndata.AnnData} of shape (n_samples, n_features)
        The data; no labels are used (an AnnData: its ``X``, with ``var_names`` as
        the feature names).
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
