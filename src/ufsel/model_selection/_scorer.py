"""A learned scorer of the route's candidates: which one to keep, and how likely it beats random.

The table it reads (:data:`SCORER_TABLE`, beside this module) is written by
``benchmarks/label_free/train_scorer.py``: a regularised logistic model of whether a
candidate's selection beats the 90th percentile of same-size random subsets (by the
k-means accuracy of labelled benchmark data, or by the planted features of planted
data), its inputs' scaling, a Platt calibration fitted out of fold, the probability
threshold chosen out of fold, and the number of training data sets. Only numpy runs at
fit time; nothing is unpickled.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np

from ._recommend import META_FEATURES

__all__ = ["LearnedScorer", "SCORER_FEATURES", "SCORER_TABLE", "candidate_features"]

#: The shipped table of :class:`LearnedScorer`.
SCORER_TABLE = "scorer_table.json"

#: The candidate's own label-free evidence, and its place among the other candidates.
EVIDENCE_FEATURES = ("prior", "prior_rel", "support", "hits_frac", "hits_rel",
                     "relevant_frac", "few_relevant", "z", "z_rel", "standardized")

#: The inputs of the scorer, in the table's order.
SCORER_FEATURES = tuple(META_FEATURES) + EVIDENCE_FEATURES


def _num(v, default=0.0):
    return default if v is None or not np.isfinite(v) else float(v)


def candidate_features(candidates, *, meta, n_relevant, n_features, few_relevant,
                       standardized, support):
    """The scorer's inputs for each candidate of one data set.

    Parameters
    ----------
    candidates : list of dict
        Each candidate's ``prior`` (the recommender's predicted gain, or None),
        ``z_score`` (or None) and ``relevant_hits`` (or None).
    meta : dict
        The data's :func:`meta_features`.
    n_relevant : int or None
        The number of relevant features.
    n_features : int
        d.
    few_relevant : bool
        Whether a few features carry the structure.
    standardized : bool
        Whether the route standardised X.
    support : float or None
        The recommender's support.

    Returns
    -------
    ndarray of shape (n_candidates, len(SCORER_FEATURES))

    Notes
    -----
    ``hits_frac`` is the candidate's relevant features among its top
    ``n_relevant`` over ``n_relevant`` (0 where none were counted); the
    ``*_rel`` inputs are the candidate's value less the largest among the
    candidates, so that the model sees both how good a candidate is and how it
    compares with the others.
    """
    prior = np.array([_num(c.get("prior")) for c in candidates])
    z = np.array([_num(c.get("z_score")) for c in candidates])
    R = n_relevant or 0
    hits = np.array([(_num(c.get("relevant_hits")) / R) if R else 0.0 for c in candidates])
    common = [_num(meta.get(name)) for name in META_FEATURES]
    rows = []
    for i in range(len(candidates)):
        own = [prior[i], prior[i] - prior.max(), _num(support), hits[i], hits[i] - hits.max(),
               R / max(n_features, 1), float(bool(few_relevant)), z[i], z[i] - z.max(),
               float(bool(standardized))]
        rows.append(common + own)
    return np.asarray(rows, dtype=np.float64).reshape(len(candidates), len(SCORER_FEATURES))


def read_scorer_table(path=None):
    """The scorer's table (a dict), the shipped one or the file at ``path``."""
    if path is None:
        text = resources.files("ufsel.model_selection").joinpath(SCORER_TABLE).read_text()
    else:
        text = Path(path).read_text()
    return json.loads(text)


class LearnedScorer:
    """Choose among the route's candidates by a model learned on labelled and planted data.

    Each usable candidate gets a probability that its selection beats same-size
    random subsets; the candidate of largest probability is chosen, and its
    probability is reported. ``AutoSelector(scorer=LearnedScorer())`` uses it.

    Parameters
    ----------
    table : dict, str or path-like, default=None
        The table written by ``benchmarks/label_free/train_scorer.py`` (a dict,
        or the path of its JSON file); None reads the shipped one.

    Attributes
    ----------
    threshold : float
        The probability at or above which "beats random" may be said (chosen
        out of fold for a precision of at least 90 %).
    n_training_sets : int
        The data sets (real, planted and semi-synthetic cases) it was trained on.

    Notes
    -----
    The model is a logistic regression on standardised inputs
    (:data:`SCORER_FEATURES`: the data's meta-features, the candidate's prior
    gain, its relevant features among its top ones, the criterion's z-score
    against random subsets, and each of them relative to the best candidate),
    whose output is recalibrated by Platt scaling fitted on out-of-fold
    predictions. The truth it learned is whether the candidate's top k beat
    the 90th percentile of random subsets of size k: by the k-means accuracy
    with K = classes on labelled benchmark data, by the count of planted
    features on planted data. The probability is therefore a statement about
    data *like* the training sets; how well it is calibrated on data it did not
    see is measured by ``benchmarks/label_free/evaluate_scorer.py``.
    """

    def __init__(self, table=None):
        self.table = table
        t = table if isinstance(table, dict) else read_scorer_table(table)
        if tuple(t["features"]) != SCORER_FEATURES:
            raise ValueError("the scorer table's features are not this version's: retrain it "
                             "with benchmarks/label_free/train_scorer.py.")
        self._mean = np.asarray(t["mean"], dtype=np.float64)
        self._scale = np.asarray(t["scale"], dtype=np.float64)
        self._coef = np.asarray(t["coef"], dtype=np.float64)
        self._intercept = float(t["intercept"])
        self._platt = (float(t["platt"][0]), float(t["platt"][1]))
        self.threshold = float(t["threshold"])
        self.n_training_sets = int(t["n_training_sets"])
        self._basis = {"model": t.get("model", "logistic"),
                       "n_training_sets": self.n_training_sets,
                       "training_sets": dict(t.get("training_sets", {})),
                       "threshold": self.threshold}

    def _decision(self, features):
        """The model's log-odds before calibration, per row."""
        Z = (np.asarray(features, dtype=np.float64) - self._mean) / self._scale
        # a row-wise sum, not a matrix product: a candidate's value never depends on the
        # other rows (BLAS may block a product differently by its position)
        return np.ascontiguousarray(Z * self._coef).sum(axis=1) + self._intercept

    def probability(self, features):
        """The calibrated probability of beating random subsets.

        Parameters
        ----------
        features : array-like of shape (n_candidates, len(SCORER_FEATURES))
            The inputs (:func:`candidate_features`).

        Returns
        -------
        ndarray of shape (n_candidates,)
            Each row's probability, in [0, 1].
        """
        a, b = self._platt
        s = a * self._decision(features) + b
        return 1.0 / (1.0 + np.exp(-np.clip(s, -500.0, 500.0)))

    def choose(self, evidence, data, recommendation):
        """Choose among the candidates.

        Parameters
        ----------
        evidence : list of Evidence
            The candidates, at least one of them usable.
        data : DataDescription
            The description of the data (its meta-features, relevant features).
        recommendation : Recommendation or None
            The recommender's prediction (None: no prior; the prior inputs are 0).

        Returns
        -------
        ScoredChoice
            The candidate of largest probability, each candidate's probability
            as its score (None for an unusable one), the chosen one's
            probability (None without the data's meta-features: they move
            every candidate's log-odds alike, so the choice stands but the
            probability does not), and the basis (the number of training
            sets, the threshold).
        """
        from ._route import ScoredChoice  # (the route's record of a choice)

        usable = [e for e in evidence if e.usable]
        if not usable:
            raise ValueError("LearnedScorer: no candidate gave a usable ranking.")
        gains = {} if recommendation is None else dict(recommendation.predicted_gain)
        cands = [{"prior": gains.get(e.method, e.prior), "z_score": e.z_score,
                  "relevant_hits": e.relevant_hits} for e in usable]
        F = candidate_features(
            cands, meta=data.meta_features or {}, n_relevant=data.n_relevant,
            n_features=data.Xw.shape[1], few_relevant=data.few_relevant,
            standardized=data.standardized,
            support=None if recommendation is None else recommendation.support)
        p = self.probability(F)
        best = int(np.argmax(p))  # ties: the first in the candidates' order
        scores = {e.label: None for e in evidence}
        for e, pe in zip(usable, p):
            scores[e.label] = float(pe)
        # the meta-features shift every candidate's log-odds alike: without them the choice
        # stands, the probability does not
        known = data.meta_features is not None
        return ScoredChoice(chosen=usable[best], scores=scores,
                            probability=float(p[best]) if known else None,
                            basis=dict(self._basis))

    def to_dict(self):
        """The scorer as plain values."""
        return {"scorer": "learned", "features": list(SCORER_FEATURES), **self._basis}
