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
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import validate_data

from .._registry import get_selector
from ..base import RankingSelectorMixin
from ..datasets._anndata import anndata_matrix, is_anndata
from ..exceptions import MemoryLimitError
from ..graph import reuse_neighbor_searches
from ..linalg import column_mean_var, constant_features
from ..utils import check_fit_memory, estimate_fit_memory
from ._criteria import CRITERIA, DEFAULT_CRITERION, _standardize, make_criterion
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
    CompareAll,
    CountRule,
    DataDescription,
    Named,
    Shortlist,
    _candidate_params,
    gather_evidence,
    scores_depend_on_count,
    uses_n_clusters,
)
from ._verdict import VerdictGate, assess_selection

__all__ = ["AutoSelector", "select_features", "DEFAULT_METHODS", "scale_spread",
           "smallest_testable_count", "standardized"]

#: Candidate methods (registry names) of ``choice="criterion"`` by default: the fast ones,
#: among them PivotedQR, whose features are the least redundant.
DEFAULT_METHODS = ("maxvariance", "laplacianscore", "spec", "mcfs", "spcafs", "pivotedqr")

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
        same result whatever the thread count. :func:`select_features` and
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
    count_note_ : str or None
        Why the count differs from the feature-count curve's suggestion, when it does.
    scale_spread_ : float
        :func:`scale_spread` of X.
    ranking_ : ndarray of shape (n_features,)
        The chosen configuration's ranking (1 = best).
    scores_ : ndarray of shape (n_features,)
        Its scores (higher is better).
    candidates_ : list of dict
        ``evidence_`` as plain values.
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
    3. **Choice**: the strategy's (:class:`Shortlist` by default).
    4. **Count**: :class:`CountRule`.
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
                 choice="recommend", recommender=None, candidate_n_clusters="scales",
                 standardize="auto", method_params=None, criterion=DEFAULT_CRITERION,
                 n_draws=20, n_resamples=10, alpha=0.05, verdict=True, random_state=0,
                 verbose=0):
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.methods = methods
        self.choice = choice
        self.recommender = recommender
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
        self._check_memory(X)
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
            cls = get_selector(name)
            est = cls(**{**_candidate_params(cls, K), **(self.method_params or {})})
            try:
                check_fit_memory(est, X)
            except MemoryLimitError as exc:
                refusals.append((estimate_fit_memory(est, X).total, exc))
            else:
                return
        raise min(refusals, key=lambda r: r[0])[1]

    # ------------------------------------------------------------------ the steps
    def _streams(self):
        """One random stream per step, so that one step's draws never shift another's."""
        rs = self.random_state
        entropy = (int(rs) if isinstance(rs, Integral) else
                   int(check_random_state(rs).randint(np.iinfo(np.int32).max)))
        names = ("describe", "relevance", "meta", "evidence", "count", "verdict")
        seqs = np.random.SeedSequence(entropy).spawn(len(names))
        return {n: np.random.RandomState(s.generate_state(1)[0]) for n, s in zip(names, seqs)}

    def _strategy(self):
        methods = [m.lower() for m in (self.methods or ())]
        given_K = (self.method_params or {}).get("n_clusters")
        if self.choice == "criterion":
            if len(methods) == 1 and (given_K is not None
                                      or self.candidate_n_clusters == "estimate"
                                      or not uses_n_clusters(get_selector(methods[0])())):
                return Named(methods[0])
            return CompareAll()
        return None  # Shortlist: built once the recommendation is known

    def _describe(self, X, strategy, rng):
        n, d = X.shape
        spread = scale_spread(X)
        units_differ = spread > UNITS_SPREAD
        std = self.standardize is True or (self.standardize == "auto" and units_differ)
        if units_differ and not std and self.method_params is None:
            warnings.warn(
                f"The features' ranges differ by a factor of {spread:.3g} (90th over "
                "10th percentile): distances, k-means and most methods follow the widest "
                "columns. Standardise X (standardize=True, or --standardize) unless the "
                "units are comparable.", UserWarning, stacklevel=4)
        data = DataDescription(Xw=standardized(X) if std else X, standardized=std,
                               scale_spread=spread)
        given_K = (self.method_params or {}).get("n_clusters")
        auto_count = self.n_features_to_select == "auto"
        named = isinstance(strategy, Named)
        needs_K = (not named or auto_count or self.verdict
                   or uses_n_clusters(get_selector(strategy.method)()))
        if self.n_clusters != "auto":
            data.n_clusters = int(self.n_clusters)
        elif given_K is not None:
            data.n_clusters = int(given_K)
        elif needs_K:
            self._log(2, "estimating the number of clusters")
            data.n_clusters = int(estimate_n_clusters(data.Xw, random_state=rng["describe"]))
            self._log(1, f"estimated n_clusters = {data.n_clusters} (eigengap)")
        K = None if data.n_clusters is None else min(data.n_clusters, n - 1)
        data.n_clusters = K
        if not named or auto_count:
            data.criterion = make_criterion(data.Xw, self.criterion, n_clusters=K,
                                            rng=rng["describe"])
            if K is not None and K >= 2:
                self._log(2, "the relevant features")
                data.relevance = feature_relevance(data.criterion.fn.Xr, K,
                                                   random_state=rng["relevance"])
                self._log(1, f"{data.n_relevant} of {d} features are relevant")
        return data

    def _fit(self, X):
        n, d = X.shape
        rng = self._streams()
        strategy = self._strategy()
        data = self.description_ = self._describe(X, strategy, rng)
        self.scale_spread_ = data.scale_spread
        self.n_clusters_ = data.n_clusters
        std = data.standardized
        self.recommendation_ = self.meta_features_ = None
        if strategy is None:
            self._log(2, "meta-features and the recommender")
            self.meta_features_ = data.meta_features = meta_features(
                X, random_state=int(rng["meta"].randint(2**31 - 1)))
            rec = self.recommender if self.recommender is not None else MethodRecommender()
            allowed = [m for m in rec.methods if not (std and m == "maxvariance")
                       and (self.methods is None or m in {x.lower() for x in self.methods})]
            self.recommendation_ = rec.recommend(self.meta_features_, allowed)
            self._log(1, self.recommendation_.summary())
            strategy = Shortlist(self.recommendation_, rec.similarity(self.meta_features_))
        self.strategy_ = strategy
        methods = ([m.lower() for m in self.methods] if self.methods
                   else list(DEFAULT_METHODS) if isinstance(strategy, CompareAll)
                   else list(self.recommendation_.predicted_gain) + list(CHEAP_METHODS)
                   if self.recommendation_ is not None else [])
        configs = strategy.configurations(self, data, methods)
        counts = _comparison_counts(d)
        auto_count = self.n_features_to_select == "auto"
        compare = strategy.compares and len(configs) > 1
        self.evidence_ = gather_evidence(
            configs, data, counts, top=int(counts[-1]) if auto_count
            else self.n_features_to_select, n_draws=self.n_draws, null_rng=rng["evidence"],
            compare=compare, log=self._log,
            priors=None if self.recommendation_ is None else self.recommendation_.predicted_gain)
        chosen = strategy.choose(self.evidence_, data) if compare else self.evidence_[0]
        est = chosen.estimator
        self.candidates_ = [{**e.to_dict(), "standardize": std} for e in self.evidence_]
        self.method_ = chosen.method
        self.params_ = {**chosen.params, "standardize": std}
        self._log(1, f"chose {chosen.method} with {self.params_}")
        ranking = chosen.rankings[int(counts[-1])]
        self.count_note_ = None
        self.curve_ = None
        if auto_count:
            self._log(2, "the feature-count curve")
            self.curve_ = feature_count_curve(
                data.criterion, ranking, default_counts(d), criterion=self.criterion,
                tolerance=DEFAULT_TOLERANCE, n_se=DEFAULT_N_SE, prefer=DEFAULT_PREFER,
                n_draws=self.n_draws, rng=rng["count"])
            self.count_rule_ = CountRule()
            k, self.count_note_ = self.count_rule_.choose(
                self.curve_.n_features, data.n_relevant, d,
                smallest_testable_count(d, alpha=self.alpha), few_relevant=data.few_relevant)
            self.n_features_to_select_ = k
        else:
            self.n_features_to_select_ = self._resolve_n_features(d)
        fitted_at = getattr(est, "n_features_to_select_", None)  # (None after fit_rankings)
        est.set_params(n_features_to_select=self.n_features_to_select_)
        if scores_depend_on_count(est) and fitted_at != self.n_features_to_select_:
            est.fit(data.Xw)  # the chosen count's own ranking (MCFS: LARS stopped there)
        self.selector_ = est
        self.scores_ = est.scores_.copy()
        self.ranking_ = est.ranking_.copy()
        self._log(1, f"n_features_to_select = {self.n_features_to_select_}")
        self.verdict_ = None
        if self.verdict and self.n_features_to_select_ < d:
            self.verdict_ = self._verdict(data.Xw, est, rng=rng["verdict"])
            self._log(1, self.verdict_.summary())
        return self

    def _verdict(self, Xw, est, *, rng):
        k = self.n_features_to_select_
        self._log(2, "the verdict: held-out tests and stability")
        n, d = Xw.shape
        order = np.argsort(self.ranking_, kind="stable")
        tied = bool(np.isclose(self.scores_[order[k - 1]], self.scores_[order[k]],
                               rtol=1e-12, atol=0.0))
        rec = self.recommendation_
        if rec is not None and self.method_ != rec.method:
            rec = None  # the record on the nearest data sets is the recommended method's
        verdict = assess_selection(
            Xw, self.ranking_ <= k, estimator=est, method=type(est).__name__,
            n_clusters=self.n_clusters_, criterion=self.criterion, n_draws=VERDICT_DRAWS,
            alpha=self.alpha, n_resamples=0 if tied else self.n_resamples,
            stability_subsample=min(0.5, STABILITY_ROWS / n),
            held_out=n >= HELD_OUT_MIN_SAMPLES, recommendation=rec,
            gate=VerdictGate(alpha=self.alpha), random_state=rng)
        if tied and self.n_resamples > 0:
            verdict = dataclasses.replace(verdict, stability_note=(
                "the selection's cut falls between features of equal score, so which of them "
                "is kept is the column order, not the data; ties are not stability"))
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
                       f"{self.n_features_to_select_} of {self.n_features_in_} features"]
        if self.count_note_:
            lines.append(f"count: {self.count_note_}")
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
            steps: ``describe`` (standardisation, K, the relevant features),
            ``candidates`` (each configuration's evidence), ``choice`` (the
            strategy), the count's ``count_note``, ``count_rule`` and
            ``n_features_curve`` (when the count was "auto"), and the
            ``recommendation`` with the ``meta_features`` (``choice="recommend"``).
        """
        out = {"verdict": None} if self.verdict_ is None else self.verdict_.to_dict()
        desc = self.description_.to_dict()
        out["describe"] = desc
        out["candidates"] = list(self.candidates_)
        out["choice"] = {**self.strategy_.to_dict(), "method": self.method_}
        if self.n_clusters_ is not None:
            out["criterion_n_clusters"] = int(self.n_clusters_)
        out.update(scale_spread=float(self.scale_spread_), count_note=self.count_note_)
        if self.curve_ is not None:
            out["count_rule"] = self.count_rule_.to_dict()
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
