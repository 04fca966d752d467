"""The steps of the label-free route and the policies that decide in them.

:class:`~ufsel.model_selection.AutoSelector` runs a fixed skeleton of steps: describe the
data, its number of clusters and which features are relevant (:class:`DataDescription`);
fit the candidates and gather their evidence (:class:`Evidence`); choose one (a *choice
strategy*: :class:`Shortlist`, :class:`CompareAll` or :class:`Named`); choose the count
(:class:`CountRule`); judge the selection (:class:`~ufsel.model_selection.VerdictGate`).
Each step returns a record; ``AutoSelector.record()`` joins them.
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

__all__ = ["CHEAP_METHODS", "PROVISIONAL_METHODS", "CompareAll", "CountRule",
           "DataDescription", "Evidence", "Named", "Shortlist", "degenerate_reason"]

#: Methods whose construction is provisional (their paper could not be obtained; see
#: their docstrings): candidates only when the user names them.
PROVISIONAL_METHODS = frozenset({"evsc"})

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
                "scale_spread": float(self.scale_spread),
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

    def to_dict(self):
        """The record of the candidate."""
        return {"method": self.method, "n_clusters": self.params.get("n_clusters"),
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


class _Strategy:
    """A choice strategy: which configurations to fit, and which to keep."""

    #: Whether the configurations are compared (else the single one is kept).
    compares = True

    def configurations(self, auto, data, methods):  # pragma: no cover - interface
        raise NotImplementedError

    def choose(self, evidence, data):
        """The best usable configuration: the most relevant features among its top
        ``n_relevant`` (where they are few, :attr:`DataDescription.few_relevant`), then
        the largest :meth:`score`."""
        usable = [e for e in evidence if e.usable]
        if not usable:
            reasons = "; ".join(f"{e.method}: {e.degenerate}" for e in evidence)
            raise ValueError(f"AutoSelector: no candidate gave a usable ranking ({reasons}).")
        return max(usable, key=lambda e: (e.relevant_hits or 0, self.score(e)))

    def score(self, e):
        """The tie-break after the relevant features: the z-score of the criterion."""
        return (-np.inf if e.z_score is None else e.z_score,)

    def to_dict(self):
        return {"strategy": type(self).__name__}


def _configs(auto, data, names, scales):
    """(name, class, params) of each configuration: each name at its defaults, at every
    scale of ``scales`` where its scores depend on K."""
    K = data.n_clusters
    out = []
    for name in names:
        cls = get_selector(name)
        user = dict(auto.method_params or {})
        uses_K = uses_n_clusters(cls())
        for Kc in (scales if uses_K and "n_clusters" not in user else (K,)):
            out.append((name.lower(), cls, {**_candidate_params(cls, Kc), **user}))
    return out


def _candidate_params(cls, n_clusters):
    defaults = cls().get_params()
    params = {}
    if "n_clusters" in defaults and n_clusters is not None:
        params["n_clusters"] = n_clusters
    if "random_state" in defaults:
        params["random_state"] = 0
    return params


class Named(_Strategy):
    """One method, one configuration, fitted and kept (``ufsel select --method NAME``)."""

    compares = False

    def __init__(self, method):
        self.method = method

    def configurations(self, auto, data, methods):
        return _configs(auto, data, [self.method], (data.n_clusters,))

    def to_dict(self):
        return {"strategy": "named", "method": self.method}


class CompareAll(_Strategy):
    """Every method of ``methods`` (at every scale of K where its scores depend on it),
    chosen by the evidence alone."""

    def configurations(self, auto, data, methods):
        n = data.Xw.shape[0]
        K = data.n_clusters
        scales = ((K,) if auto.candidate_n_clusters == "estimate" or K is None
                  else agreement_scales(K, min(n, MAX_CRITERION_SAMPLES)))
        names = [m for m in methods
                 if not (data.standardized and m == "maxvariance" and len(methods) > 1)]
        return _configs(auto, data, names, scales)

    def to_dict(self):
        return {"strategy": "compare all"}


class Shortlist(_Strategy):
    """The recommender proposes, the data decide where they can.

    The recommender's :data:`SHORTLIST_SIZE` methods of largest predicted gain (never a
    provisional one unless named) join the cheap filters (:data:`CHEAP_METHODS`), each at
    the estimated K, and are fitted. Where a few features carry the structure
    (:attr:`DataDescription.few_relevant`), the candidate with the most of them among its
    top ``n_relevant`` is chosen; otherwise, and among equals, the one of largest
    predicted gain, then of largest z-score. A fit that is degenerate (tied scores, no
    convergence, a failure) is never chosen.

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

    def configurations(self, auto, data, methods):
        rec = self.recommendation
        ranked = sorted(rec.predicted_gain, key=lambda m: (-rec.predicted_gain[m], m))
        named = set(auto.methods or ())
        ranked = [m for m in ranked if m not in PROVISIONAL_METHODS or m in named]
        allowed = set(methods)
        short = [m for m in ranked if m in allowed][:SHORTLIST_SIZE]
        extra = [m for m in CHEAP_METHODS if m in allowed or auto.methods is None]
        names = list(dict.fromkeys(short + extra))
        if data.standardized:
            names = [m for m in names if m != "maxvariance"]
        return _configs(auto, data, names, (data.n_clusters,))

    def score(self, e):
        gain = self.recommendation.predicted_gain.get(e.method, -np.inf)
        return (gain,) + super().score(e)

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


@dataclass(frozen=True)
class CountRule:
    """How many features to keep (the *count* step).

    Notes
    -----
    Where a few features carry the structure (:attr:`DataDescription.few_relevant`,
    :func:`feature_relevance`), the count is their number: the feature-count
    curve, whose advantage over random subsets stays flat once the carriers are
    in, cannot tell where they end. Otherwise (no relevant feature, or hundreds of
    them, as on gene-expression data, where the relevant count was no better than
    the curve's on the pool) it is the curve's suggestion
    (:func:`suggest_n_features`). Either is raised to the smallest count the
    verdict's test can judge. The feature-count curve never goes above half of d,
    and a few relevant features are at most 30 % of it.
    """

    def choose(self, curve_count, n_relevant, n_features, smallest_testable, *,
               few_relevant=None):
        """The count, and a note saying why it differs from the curve's.

        Parameters
        ----------
        curve_count : int
            The feature-count curve's suggestion.
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
        count : int
            The number of features to keep.
        note : str or None
            Why it differs from ``curve_count``, when it does.
        """
        d = n_features
        k, note = int(curve_count), None
        few = is_few_relevant(n_relevant, d) if few_relevant is None else few_relevant
        if few:
            if n_relevant != k:
                note = (f"{n_relevant} features carry structure that the others share "
                        f"(relevance test); kept {n_relevant} rather than the feature-count "
                        f"curve's {k}")
            k = int(n_relevant)
        if k < smallest_testable < d:
            note = (f"{'the count' if note is None else note}; raised to {smallest_testable}, "
                    f"the smallest count the random-subset test can judge")
            k = smallest_testable
        return k, note

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
