"""The steps of the label-free route and the policies that decide in them.

:class:`~ufsel.model_selection.AutoSelector` runs a fixed skeleton of steps: describe the
data, its number of clusters and which features are relevant (:class:`DataDescription`);
fit the candidates and gather their evidence (:class:`Evidence`); choose one (a *choice
strategy*: :class:`Shortlist`, :class:`CompareAll` or :class:`Named`); choose the count
(:class:`CountRule`, a :class:`CountDecision`); judge the selection
(:class:`~ufsel.model_selection.VerdictGate`). A strategy's choice goes through a *scorer*
(:class:`HandRule` by default), whose :class:`ScoredChoice` is recorded. Each step returns a
record; ``AutoSelector.record()`` joins them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from .._registry import get_selector
from ..utils import get_selector_tags, thread_limit
from ._criteria import MAX_CRITERION_SAMPLES, agreement_scales
from ._feature_count import ESTIMATE_REPEATS
from ._random_subset import null_subsets, summarize_null

__all__ = ["CHEAP_METHODS", "DEFAULT_METHODS", "PROVISIONAL_METHODS", "CandidateSpec",
           "CompareAll", "CountDecision", "CountRule", "DataDescription", "Evidence",
           "HandRule", "Named", "ScoredChoice", "Shortlist", "degenerate_reason"]

#: Methods whose construction is provisional (their paper could not be obtained; see
#: their docstrings): candidates only when the user names them.
PROVISIONAL_METHODS = frozenset({"evsc"})

#: Candidate methods (registry names) of ``choice="criterion"`` by default: the fast ones,
#: among them PivotedQR, whose features are the least redundant.
DEFAULT_METHODS = ("maxvariance", "laplacianscore", "spec", "mcfs", "spcafs", "pivotedqr")

#: Methods whose fits cost milliseconds to seconds: the evidence always includes them.
CHEAP_METHODS = ("maxvariance", "laplacianscore", "pivotedqr", "spcafs")

#: How many of the recommender's methods (by predicted gain) join the evidence.
SHORTLIST_SIZE = 2

#: Relevant features are *few* (a planted structure among noise) when they are at most this
#: fraction of d and at most :data:`FEW_RELEVANT_MAX` of them; then they decide the choice
#: and the count.
FEW_RELEVANT_FRACTION = 0.3
FEW_RELEVANT_MAX = 50


def is_few_relevant(n_relevant, n_features):
    """Whether a few features carry the structure among many that do not: at least one
    relevant feature, at most :data:`FEW_RELEVANT_FRACTION` of d and at most
    :data:`FEW_RELEVANT_MAX`."""
    return bool(n_relevant and n_relevant <= min(FEW_RELEVANT_FRACTION * n_features,
                                                 FEW_RELEVANT_MAX))


def uses_n_clusters(est):
    """Whether a selector's scores depend on ``n_clusters`` at its settings (its tag)."""
    return bool(get_selector_tags(est).uses_n_clusters)


def scores_depend_on_count(est):
    """Whether a selector's scores change with the number of features selected (its tag)."""
    return bool(get_selector_tags(est).scores_depend_on_count)


@dataclass
class DataDescription:
    """What the route knows of X before it fits anything (the *describe* step).

    Parameters
    ----------
    Xw : ndarray or sparse matrix
        The working data: X, or X standardised.
    standardized : bool
        Whether ``Xw`` is standardised.
    scale_spread : float
        :func:`scale_spread` of X.
    scaling : str
        Why ``Xw`` is standardised or not, in words (what ``ufsel select``
        prints).
    n_clusters : int or None
        K, estimated or given.
    criterion : callable or None
        The label-free criterion of a subset (:func:`make_criterion`).
    relevance : FeatureRelevance or None
        Which features carry structure shared with the others.
    meta_features : dict or None
        The recommender's description of X.
    """

    Xw: object
    standardized: bool
    scale_spread: float
    scaling: str = ""
    n_clusters: int | None = None
    criterion: object = None
    relevance: object = None
    meta_features: dict | None = None

    @property
    def n_relevant(self):
        """The number of relevant features (None when not computed)."""
        return None if self.relevance is None else self.relevance.n_relevant

    @property
    def few_relevant(self):
        """Whether a few features carry the structure (:func:`is_few_relevant`)."""
        return is_few_relevant(self.n_relevant, self.Xw.shape[1])

    def to_dict(self):
        """The record of the step."""
        return {"standardized": bool(self.standardized),
                "scale_spread": float(self.scale_spread), "scaling": self.scaling,
                "criterion_n_clusters": None if self.n_clusters is None
                else int(self.n_clusters),
                "n_relevant": self.n_relevant, "few_relevant": self.few_relevant,
                "relevant": None if self.relevance is None
                else np.flatnonzero(self.relevance.relevant).tolist()}


@dataclass
class Evidence:
    """One candidate configuration's fit and what the data say of it.

    Parameters
    ----------
    method : str
        Registry name.
    params : dict
        Its parameters.
    prior : float or None
        The recommender's predicted ACC gain over random subsets (None: no
        prediction for it).
    estimator : selector or None
        The fitted selector (None when the fit failed).
    rankings : dict
        Its ranking for each comparison count.
    z_score : float or None
        Its top features' criterion against random subsets, averaged over
        the comparison counts.
    relevant_hits : int or None
        Relevant features among its top ``n_relevant``.
    degenerate : str or None
        Why its fit cannot be used (tied scores, a failed fit, no convergence).
    warnings : list of warnings.WarningMessage
        The warnings its fit raised.
    """

    method: str
    params: dict
    prior: float | None = None
    estimator: object = None
    rankings: dict = field(default_factory=dict)
    z_score: float | None = None
    relevant_hits: int | None = None
    degenerate: str | None = None
    warnings: list = field(default_factory=list)

    @property
    def usable(self):
        """Whether the choice may take it."""
        return self.degenerate is None and self.estimator is not None

    @property
    def label(self):
        """The configuration's name in records: ``"mcfs(K=5)"``, or the method alone."""
        K = self.params.get("n_clusters")
        return self.method if K is None else f"{self.method}(K={K})"

    def to_dict(self):
        """The record of the candidate."""
        return {"method": self.method, "label": self.label,
                "n_clusters": self.params.get("n_clusters"),
                "params": dict(self.params),
                "prior_gain": self.prior, "z_score": self.z_score,
                "relevant_hits": self.relevant_hits, "degenerate": self.degenerate,
                "error": self.degenerate if self.estimator is None else None}


def degenerate_reason(est, caught):
    """Why a fitted selector's ranking is arbitrary, or None.

    Parameters
    ----------
    est : fitted selector
    caught : list of warnings.WarningMessage
        The warnings its fit raised.

    Returns
    -------
    reason : str or None
        "every score is tied" when the non-constant features' scores are all
        equal (the ranking is then the column order); the warning's text when
        the fit did not converge or warned that its scores are void; None
        otherwise.
    """
    from sklearn.exceptions import ConvergenceWarning

    scores = getattr(est, "scores_", None)  # (a ranking per count after fit_rankings)
    if scores is not None:
        scores = np.asarray(scores, dtype=np.float64)
        const = np.asarray(getattr(est, "constant_features_", np.zeros(scores.size, bool)),
                           dtype=bool)
        live = scores[~const] if const.size == scores.size else scores
        live = live[np.isfinite(live)]
        if live.size >= 2 and np.ptp(live) <= 1e-12 * max(1.0, float(np.abs(live).max())):
            return "every score is tied (the ranking is the column order)"

    for w in caught:
        text = str(w.message)
        if issubclass(w.category, ConvergenceWarning) or "every score is 0" in text:
            return text.split(". ")[0]
    return None


@dataclass(frozen=True)
class CandidateSpec:
    """What the user asked of the candidates: the strategies' one input besides the data.

    Parameters
    ----------
    methods : tuple of str or None
        The methods the user named (registry names, lower case); None lets
        the strategy use its own pool. A provisional method
        (:data:`PROVISIONAL_METHODS`) is a candidate only when named here.
    k_scales : {"scales", "estimate"}
        Where a candidate's scores depend on K: fit it at each scale of the
        criterion (``"scales"``, :class:`CompareAll` only) or at K alone.
    params : dict
        The user's parameters, on top of each method's defaults (an
        ``n_clusters`` among them fixes the method's K).
    random_state : int
        The seed of every candidate that takes one (``AutoSelector``'s own
        integer seed, else drawn from its candidates' stream).
    """

    methods: tuple | None
    k_scales: str
    params: dict
    random_state: int

    @property
    def named(self):
        """The methods the user named, as a set."""
        return set(self.methods or ())

    def configurations(self, names, scales):
        """The configurations of ``names``, each at every scale where its scores depend on K.

        Parameters
        ----------
        names : list of str
            Registry names.
        scales : tuple of int or None
            The values of K; a method whose scores do not depend on K, or whose K
            the user fixed, gets the first.

        Returns
        -------
        list of (str, type, dict)
            (name, class, parameters): the method's defaults, its K and seed, then
            the user's parameters.
        """
        out = []
        for name in names:
            cls = get_selector(name)
            uses_K = uses_n_clusters(cls())
            for Kc in (scales if uses_K and "n_clusters" not in self.params else scales[:1]):
                out.append((name.lower(), cls, {**candidate_params(cls, Kc, self.random_state),
                                                **self.params}))
        return out


def candidate_params(cls, n_clusters, random_state):
    """A candidate's parameters set by the route: its K and its seed, where it takes them."""
    defaults = cls().get_params()
    params = {}
    if "n_clusters" in defaults and n_clusters is not None:
        params["n_clusters"] = int(n_clusters)
    if "random_state" in defaults:
        params["random_state"] = int(random_state)
    return params


@dataclass(frozen=True)
class ScoredChoice:
    """A scorer's choice among the candidates, with what it rests on.

    Parameters
    ----------
    chosen : Evidence
        The chosen configuration.
    scores : dict
        Each candidate's score by its :attr:`Evidence.label` (higher is
        better; None for an unusable one).
    probability : float or None
        A calibrated probability that the chosen selection beats random
        subsets on labelled data like this (None: the scorer does not say).
    basis : dict or None
        What the scores rest on (the rule, or the number of training sets).
    """

    chosen: Evidence
    scores: dict
    probability: float | None = None
    basis: dict | None = None

    def to_dict(self):
        """The record of the choice.

        Returns
        -------
        dict
            The chosen label and method, the scores, the probability and the basis.
        """
        return {"chosen": self.chosen.label, "method": self.chosen.method,
                "scores": dict(self.scores), "probability": self.probability,
                "basis": None if self.basis is None else dict(self.basis)}


class HandRule:
    """The hand-ordered choice: relevant features where they are few, then the prior, then z.

    Where a few features carry the structure (:attr:`DataDescription.few_relevant`),
    the usable candidate with the most of them among its top ``n_relevant`` is
    chosen; among equals, and otherwise, the one of largest predicted gain (the
    recommendation's, when there is one), then of largest z-score. A candidate that
    is not usable (:attr:`Evidence.usable`) is never chosen.

    Notes
    -----
    Its scores are ranks in that order (the number of usable candidates a candidate is
    placed above, plus one); it gives no probability. Any object with the same
    ``choose`` and ``to_dict`` can replace it (``AutoSelector(scorer=...)``).
    """

    def _key(self, e, data, gains):
        hits = (e.relevant_hits or 0) if data.few_relevant else 0
        return (hits, gains.get(e.method, -np.inf),
                -np.inf if e.z_score is None else e.z_score)

    def choose(self, evidence, data, recommendation):
        """Choose among the candidates.

        Parameters
        ----------
        evidence : list of Evidence
            The candidates, at least one of them usable.
        data : DataDescription
            The description of the data.
        recommendation : Recommendation or None
            The recommender's prediction (None: no prior).

        Returns
        -------
        ScoredChoice
            The choice, each candidate's rank as its score, no probability.
        """
        gains = {} if recommendation is None else dict(recommendation.predicted_gain)
        usable = [e for e in evidence if e.usable]
        order = sorted(usable, key=lambda e: self._key(e, data, gains), reverse=True)
        scores = {e.label: None for e in evidence}
        for i, e in enumerate(order):
            scores[e.label] = float(len(order) - i)
        chosen = order[0]
        runner = order[1] if len(order) > 1 else None
        decided = None
        if runner is not None:
            a, b = self._key(chosen, data, gains), self._key(runner, data, gains)
            decided = ("relevant features" if a[0] != b[0] else
                       "predicted gain" if a[1] != b[1] else
                       "z-score" if a[2] != b[2] else "candidate order")
        return ScoredChoice(chosen=chosen, scores=scores, probability=None,
                            basis={"rule": "hand rule", "decided_by": decided})

    def to_dict(self):
        """The scorer as plain values.

        Returns
        -------
        dict
            Its name and its order of keys.
        """
        return {"scorer": "hand rule", "order": ["relevant features among the top (where "
                                                 "few are relevant)", "predicted gain",
                                                 "z-score"]}


class _Strategy:
    """A choice strategy: which configurations to fit, and which to keep."""

    #: Whether the configurations are compared (else the single one is kept).
    compares = True

    #: The recommender's prediction the scorer sees (the shortlist's; None otherwise).
    recommendation = None

    def configurations(self, spec, data):  # pragma: no cover - interface
        raise NotImplementedError

    def choose(self, evidence, data, scorer):
        """The scorer's choice among the usable configurations (:class:`ScoredChoice`)."""
        if not any(e.usable for e in evidence):
            reasons = "; ".join(f"{e.method}: {e.degenerate}" for e in evidence)
            raise ValueError(f"AutoSelector: no candidate gave a usable ranking ({reasons}).")
        return scorer.choose(list(evidence), data, self.recommendation)

    def to_dict(self):
        return {"strategy": type(self).__name__}


class Named(_Strategy):
    """One method, one configuration, fitted and kept (``ufsel select --method NAME``)."""

    compares = False

    def __init__(self, method):
        self.method = method

    def configurations(self, spec, data):
        return spec.configurations([self.method], (data.n_clusters,))

    def to_dict(self):
        return {"strategy": "named", "method": self.method}


class CompareAll(_Strategy):
    """Every method of ``methods`` (:data:`DEFAULT_METHODS` by default; at every scale of K
    where its scores depend on it), chosen by the evidence alone."""

    def configurations(self, spec, data):
        n = data.Xw.shape[0]
        K = data.n_clusters
        scales = ((K,) if spec.k_scales == "estimate" or K is None
                  else agreement_scales(K, min(n, MAX_CRITERION_SAMPLES)))
        methods = list(spec.methods or DEFAULT_METHODS)
        names = [m for m in methods
                 if not (data.standardized and m == "maxvariance" and len(methods) > 1)]
        return spec.configurations(names, scales)

    def to_dict(self):
        return {"strategy": "compare all"}


class Shortlist(_Strategy):
    """The recommender proposes, the data decide where they can.

    The recommender's :data:`SHORTLIST_SIZE` methods of largest predicted gain (never a
    provisional one unless named) join the cheap filters (:data:`CHEAP_METHODS`), each at
    the estimated K, and are fitted. The scorer (:class:`HandRule` by default) chooses:
    where a few features carry the structure (:attr:`DataDescription.few_relevant`), the
    candidate with the most of them among its top ``n_relevant``; otherwise, and among
    equals, the one of largest predicted gain, then of largest z-score. A fit that is
    degenerate (tied scores, no convergence, a failure) is never chosen.

    Why this order: ``benchmarks/label_free/choice_weights.py`` chose the weights of
    ``z + w_hits * hits + prior_z * similarity * share`` leave-one-data-set-out on the
    pool's 56 data sets; the prior alone did as well there as any mixture (the z-score
    and a prior that shrinks with the distance to the pool added nothing), and the
    relevant features decide the sanity suite's planted cases, where the prior alone
    fails. The similarity to the pool is recorded (``record()["choice"]``).
    """

    def __init__(self, recommendation, similarity):
        self.recommendation = recommendation
        self.similarity = float(similarity)

    def configurations(self, spec, data):
        rec = self.recommendation
        ranked = sorted(rec.predicted_gain, key=lambda m: (-rec.predicted_gain[m], m))
        ranked = [m for m in ranked if m not in PROVISIONAL_METHODS or m in spec.named]
        allowed = (set(spec.methods) if spec.methods
                   else set(rec.predicted_gain) | set(CHEAP_METHODS))
        short = [m for m in ranked if m in allowed][:SHORTLIST_SIZE]
        extra = [m for m in CHEAP_METHODS if m in allowed]
        names = list(dict.fromkeys(short + extra))
        if data.standardized:
            names = [m for m in names if m != "maxvariance"]
        return spec.configurations(names, (data.n_clusters,))

    def to_dict(self):
        return {"strategy": "shortlist", "recommended": self.recommendation.method,
                "similarity": self.similarity}


def gather_evidence(configs, data, counts, *, top, n_draws, null_rng, compare, log,
                    priors=None):
    """Fit every configuration and score it (the *evidence* step).

    Parameters
    ----------
    configs : list of (name, class, params)
    data : DataDescription
    counts : ndarray of int
        The comparison counts.
    top : int or None
        ``n_features_to_select`` of each fit (None: the AutoSelector's own).
    n_draws : int
        Random subsets per count.
    null_rng : RandomState
        Draws the random subsets (the same for every configuration).
    compare : bool
        Score the configurations (False: fit the single one only).
    log : callable
        ``log(level, message)``.
    priors : dict or None, default=None
        The recommender's predicted gain of each method.

    Returns
    -------
    list of Evidence
    """
    f = data.criterion
    d = data.Xw.shape[1]
    nulls = {}
    if compare and f is not None:
        with thread_limit(0):  # k-means on a row sample of a few columns: a small problem
            for k in counts:
                subsets, exact = null_subsets(null_rng, d, int(k), n_draws)
                nulls[int(k)] = (np.array([f(c) for c in subsets]), exact)
    R = data.n_relevant
    rel = None if data.relevance is None else data.relevance.relevant
    out = []
    for name, cls, params in configs:
        log(3, f"fitting candidate {name} {params}")
        est = cls(**params, n_features_to_select=top)
        ev = Evidence(method=name, params=params, prior=(priors or {}).get(name))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:  # (each fit runs under the thread policy, in the base class)
                if compare and scores_depend_on_count(est):
                    ev.rankings = est.fit_rankings(data.Xw, counts)
                else:
                    est.fit(data.Xw)
                    ev.rankings = {int(k): est.ranking_ for k in counts}
            except (ValueError, ArithmeticError) as exc:
                if not compare:
                    raise
                ev.degenerate = f"the fit failed: {exc}"
                log(2, f"{name} ({params}) failed: {exc}")
                out.append(ev)
                continue
        ev.warnings = list(caught)
        ev.estimator = est
        if compare:
            ev.degenerate = degenerate_reason(est, caught)
        if nulls:
            with thread_limit(0):
                zs = [summarize_null(f(np.argsort(ev.rankings[int(k)], kind="stable")[:k],
                                       repeats=ESTIMATE_REPEATS), *nulls[int(k)])[2]
                      for k in counts]
            ev.z_score = float(np.mean(zs))
        if rel is not None and 0 < R < d:
            order = np.argsort(ev.rankings[int(counts[-1])], kind="stable")
            ev.relevant_hits = int(np.count_nonzero(rel[order[:R]]))
        log(2, f"{name} ({params}): z = {ev.z_score}, relevant hits = {ev.relevant_hits}, "
               f"degenerate = {ev.degenerate}")
        out.append(ev)
    return out


#: What can decide the count (:attr:`CountDecision.decided_by`).
COUNT_DECIDERS = ("relevant features", "feature-count curve", "smallest testable count", "user")


@dataclass(frozen=True)
class CountDecision:
    """The count and what decided it (the *count* step's record).

    Parameters
    ----------
    k : int
        The number of features to keep.
    decided_by : {"relevant features", "feature-count curve", \
            "smallest testable count", "user"}
        What decided it.
    note : str or None
        Why, in words, when it is not simply the feature-count curve's or the
        user's count.
    """

    k: int
    decided_by: str
    note: str | None = None

    def __post_init__(self):
        if self.decided_by not in COUNT_DECIDERS:
            raise ValueError(f"decided_by={self.decided_by!r} not understood, valid options "
                             f"are {COUNT_DECIDERS}.")

    def to_dict(self):
        """The decision as plain values.

        Returns
        -------
        dict
            ``k``, ``decided_by`` and ``note``.
        """
        return {"k": int(self.k), "decided_by": self.decided_by, "note": self.note}


@dataclass(frozen=True)
class CountRule:
    """How many features to keep (the *count* step).

    Notes
    -----
    Where a few features carry the structure (:attr:`DataDescription.few_relevant`,
    :func:`feature_relevance`), the count is their number: the feature-count
    curve, whose advantage over random subsets stays flat once the carriers are
    in, cannot tell where they end, and it is not computed
    (:meth:`needs_curve`). Otherwise (no relevant feature, or hundreds of them,
    as on gene-expression data, where the relevant count was no better than the
    curve's on the pool) it is the curve's suggestion
    (:func:`suggest_n_features`). Either is raised to the smallest count the
    verdict's test can judge. The feature-count curve never goes above half of d,
    and a few relevant features are at most 30 % of it.
    """

    def needs_curve(self, n_relevant, n_features, *, few_relevant=None):
        """Whether the count needs the feature-count curve (no: the relevant features decide).

        Parameters
        ----------
        n_relevant : int or None
            The number of relevant features (None: not computed).
        n_features : int
            d.
        few_relevant : bool or None, default=None
            As in :meth:`choose`.

        Returns
        -------
        bool
        """
        few = (is_few_relevant(n_relevant, n_features) if few_relevant is None
               else few_relevant)
        return not few

    def choose(self, curve_count, n_relevant, n_features, smallest_testable, *,
               few_relevant=None):
        """The count, and what decided it.

        Parameters
        ----------
        curve_count : int or None
            The feature-count curve's suggestion (None when it was not computed,
            :meth:`needs_curve`).
        n_relevant : int or None
            The number of relevant features (None: not computed).
        n_features : int
            d.
        smallest_testable : int
            The smallest count the verdict's test can judge.
        few_relevant : bool or None, default=None
            Whether a few features carry the structure
            (:attr:`DataDescription.few_relevant`); None decides from
            ``n_relevant`` and ``n_features`` (:func:`is_few_relevant`).

        Returns
        -------
        CountDecision
            The count, what decided it ("relevant features", "feature-count
            curve" or, when the count was raised to it, "smallest testable
            count") and a note.
        """
        d = n_features
        few = is_few_relevant(n_relevant, d) if few_relevant is None else few_relevant
        if few:
            k, by = int(n_relevant), "relevant features"
            note = (f"{n_relevant} of the {d} features carry structure that the others share "
                    "(relevance test)")
            if curve_count is not None and curve_count != k:
                note += f"; kept {k} rather than the feature-count curve's {curve_count}"
        elif curve_count is None:
            raise ValueError("the count needs the feature-count curve here (see needs_curve).")
        else:
            k, by, note = int(curve_count), "feature-count curve", None
        if k < smallest_testable < d:
            note = (f"{'the ' + by + ' gave ' + str(k) if note is None else note}; raised to "
                    f"{smallest_testable}, the smallest count the random-subset test can judge")
            k, by = smallest_testable, "smallest testable count"
        return CountDecision(k=k, decided_by=by, note=note)

    def to_dict(self):
        """The rule as plain values.

        Returns
        -------
        dict
            Its description and what "few" means.
        """
        return {"rule": "the relevant features where they are few, else the feature-count "
                        "curve",
                "few_relevant": {"max_fraction": FEW_RELEVANT_FRACTION,
                                 "max_count": FEW_RELEVANT_MAX}}
