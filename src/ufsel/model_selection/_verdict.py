"""The label-free verdict on a selection: does it beat random subsets, and how stable is it?"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_array, check_random_state

from ..utils import thread_limit
from ._criteria import CRITERIA, DEFAULT_CRITERION, make_criterion
from ._n_clusters import estimate_n_clusters
from ._random_subset import RandomSubsetTest, subset_test, support_indices
from ._relevance import RelevanceTest, feature_relevance, hypergeometric_tail, relevance_test
from ._stability import Stability, selection_stability

__all__ = ["Verdict", "VerdictGate", "assess_selection"]


#: Fewer held-out rows than this cannot show that no feature is relevant ("not shown").
MIN_NULL_ROWS = 50


@dataclass(frozen=True)
class VerdictGate:
    """The rule that turns the verdict's evidence into "beats random", "not shown" or "no better".

    The same object decides in :func:`assess_selection`, in
    :class:`~ufsel.model_selection.AutoSelector` and in the pool's evaluation
    (``benchmarks/label_free/evaluate_pool.py``), so the rule lives in one place.

    Parameters
    ----------
    alpha : float, default=0.05
        Level of both tests.
    min_support : float, default=1.0
        The recommender's support (the weighted fraction of the nearest
        benchmark data sets on which its method beat random subsets) at which
        its record may stand in for the relevance test.
    min_gain : float, default=0.02
        And the predicted ACC gain it must exceed.
    min_probability : float or None, default=None
        The least probability (from the choice's scorer, :class:`ScoredChoice`)
        that a selection like this beats random subsets on labelled data like
        X, for "beats random"; None sets no condition, and neither does a
        probability of None.

    Notes
    -----
    "beats random" needs shared structure in the held-out rows (at least one
    relevant feature, :func:`feature_relevance`) and either

    - the relevance test (the selection holds more relevant features than a
      random subset of its size, hypergeometric ``p <= alpha``) with a
      positive agreement z-score, or
    - the agreement test (``p <= alpha``) with the recommender's record on
      the nearest benchmark data sets (``support >= min_support`` and
      predicted gain ``> min_gain``): the record raises confidence; it never
      vetoes a passing relevance test.

    "no better" needs evidence of no effect: no relevant feature at all in
    held-out rows, or both tests at or below chance (agreement z <= 0 and no
    more relevant features than a random subset holds) while the relevance
    test had the power to see an effect (a selection of only relevant
    features would have passed). Everything else is "not shown", with what
    would settle it. A passing structure test with a probability below
    ``min_probability`` is "not shown".
    """

    alpha: float = 0.05
    min_support: float = 1.0
    min_gain: float = 0.02
    min_probability: float | None = None

    def __post_init__(self):
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be in (0, 1), got {self.alpha!r}.")
        if self.min_probability is not None and not 0 <= self.min_probability <= 1:
            raise ValueError(f"min_probability must be in [0, 1] or None, got "
                             f"{self.min_probability!r}.")

    def decide(self, test, relevance, recommendation=None, *, testable=True,
               probability=None):
        """The outcome and its reason.

        Parameters
        ----------
        test : RandomSubsetTest
            The agreement test.
        relevance : RelevanceTest or None
            The relevance test (None: the agreement test alone, with the
            recommender's record).
        recommendation : Recommendation or None, default=None
            The recommender's prediction for the method that was run.
        testable : bool, default=True
            Whether the agreement test can reach ``alpha`` at all.
        probability : float or None, default=None
            The scorer's probability (see ``min_probability``).

        Returns
        -------
        outcome : {"beats random", "not shown", "no better"}
        reason : str or None
            Why, for "not shown" and "no better".
        """
        outcome, reason, _ = self.decide_with_test(test, relevance, recommendation,
                                                   testable=testable, probability=probability)
        return outcome, reason

    def decide_with_test(self, test, relevance, recommendation=None, *, testable=True,
                         probability=None):
        """:meth:`decide`, with the test that decided.

        Parameters
        ----------
        test, relevance, recommendation, testable, probability
            As in :meth:`decide`.

        Returns
        -------
        outcome : {"beats random", "not shown", "no better"}
        reason : str or None
            Why, for "not shown" and "no better".
        decided_by : {"relevance", "agreement"} or None
            The test whose p-value decided (None when neither did alone).
        """
        outcome, reason, by = self._structure(test, relevance, recommendation,
                                              testable=testable)
        p_min = self.min_probability
        if (outcome == "beats random" and probability is not None and p_min is not None
                and probability < p_min):
            p = relevance.p_value if by == "relevance" else test.p_value
            return "not shown", (
                f"the selection keeps the data's structure better than random subsets "
                f"({by} test, p = {p:.3g}), but on labelled data like this a selection like "
                f"it beat random subsets with probability {probability:.2f}, below "
                f"{p_min:.2f}"), by
        return outcome, reason, by

    def _structure(self, test, relevance, recommendation, *, testable):
        a = self.alpha
        agree = test.p_value <= a and test.z_score > 0
        rec_ok = (recommendation is not None
                  and recommendation.support >= self.min_support
                  and recommendation.predicted_gain[recommendation.method] > self.min_gain)
        if not testable:
            return "not shown", None, None
        if relevance is not None and relevance.n_relevant == 0:
            if relevance.n_samples < MIN_NULL_ROWS:
                return "not shown", (
                    f"no feature is associated with the clusters of the other features in the "
                    f"{relevance.n_samples} held-out rows, too few to show that there is no "
                    "structure; more rows would settle it"), None
            if not agree:
                return "no better", (
                    "no feature's values differ between the clusters that k-means finds on "
                    "the other features, in rows the selection did not see: the data show no "
                    "structure shared between features for a selection to keep"), None
            return "not shown", (
                "the selection agrees with the data's clusters better than random subsets, "
                "but no feature is associated with the clusters of the other features, so "
                "the agreement may be chance"), None
        if relevance is not None and relevance.p_value <= a and test.z_score > 0:
            return "beats random", None, "relevance"
        if agree and (rec_ok or relevance is None and recommendation is None):
            return "beats random", None, "agreement"
        if relevance is not None:
            # the p-value a selection of only relevant features would have had
            perfect = hypergeometric_tail(
                min(relevance.n_selected, relevance.n_relevant), relevance.n_features,
                relevance.n_relevant, relevance.n_selected)
            powered = perfect <= a
            if (test.z_score <= 0 and relevance.in_selection <= relevance.expected
                    and powered):
                return "no better", (
                    f"its features agree with the data's clusters no better than random "
                    f"subsets (z = {test.z_score:.2f}) and hold {relevance.in_selection} of the "
                    f"{relevance.n_relevant} features relevant in the rows tested, no more "
                    f"than the "
                    f"{relevance.expected:.1f} a random subset holds"), None
            if agree:
                return "not shown", (
                    f"its features agree with the data's clusters better than random subsets "
                    f"(p = {test.p_value:.3g}), but they hold {relevance.in_selection} of the "
                    f"{relevance.n_relevant} features relevant in the rows tested against "
                    f"{relevance.expected:.1f} "
                    f"for a random subset (p = {relevance.p_value:.3g}), and "
                    + ("no benchmark record backs the method here" if recommendation is None
                       else f"{recommendation.method}'s record on the nearest benchmark data "
                            f"sets is too weak ({100 * recommendation.support:.0f} % support)")
                    + " to trust the agreement alone"), None
            if not powered:
                R, d, k = relevance.n_relevant, relevance.n_features, relevance.n_selected
                if R >= d:
                    why = (f"every one of the {d} features is relevant in the rows tested, so "
                           "the relevance test cannot tell a selection from a random subset")
                elif R >= k:
                    why = (f"{R} of the {d} features are relevant in the rows tested, so a "
                           f"random subset of {k} already holds {relevance.expected:.1f} of "
                           "them and the relevance test cannot show an effect")
                else:
                    why = (f"only {R} of the {d} features are relevant in the rows tested, "
                           f"too few for a selection of {k} to show an effect; a smaller "
                           "count, or more rows, would settle it")
                return "not shown", (
                    f"{why}; the agreement test alone did not show one (p = "
                    f"{test.p_value:.3g})"), None
        return "not shown", (
            f"the tests fail to show an effect (agreement p = {test.p_value:.3g}"
            + ("" if relevance is None else f", relevance p = {relevance.p_value:.3g}")
            + "), which is not evidence that there is none; more rows would settle it"), None



@dataclass(frozen=True)
class Verdict:
    """How far the selection can be trusted, judged without labels.

    Parameters
    ----------
    stability : Stability or None
        Nogueira et al.'s stability of the chosen configuration under
        resampling (None when ``n_resamples=0``, or when the selection's cut
        falls between tied scores: ties are not stability).
    test : RandomSubsetTest
        The agreement test: the chosen subset against fresh random subsets
        of the same size by the label-free criterion.
    outcome : {"beats random", "not shown", "no better"}
        The verdict (:class:`VerdictGate`).
    alpha : float
        Level of the tests.
    method : str
        Name of the method, for the summary.
    n_features : int
        Size of the selection.
    held_out : bool
        Whether the tests judged a selection made the same way on half the
        samples, on the other half (see :func:`assess_selection`).
    reason : str or None
        Why the outcome is "not shown" or "no better".
    relevance : RelevanceTest or None
        The relevance test: relevant features in the selection against a
        random subset of its size.
    stability_note : str or None
        Why no stability is reported, when it is not.
    probability : float or None
        The choice's scorer's probability that a selection like this beats
        random subsets on labelled data like X (:class:`ScoredChoice`; None
        when the scorer gives none).
    decided_by : {"relevance", "agreement"} or None
        The test whose p-value decided "beats random" (None otherwise).
    """

    stability: Stability | None
    test: RandomSubsetTest
    outcome: str
    alpha: float
    method: str
    n_features: int
    held_out: bool = False
    reason: str | None = None
    relevance: RelevanceTest | None = None
    stability_note: str | None = None
    probability: float | None = None
    decided_by: str | None = None

    @property
    def decisive_p_value(self):
        """The p-value of the test that decided "beats random" (None otherwise)."""
        if self.decided_by == "relevance":
            return self.relevance.p_value
        if self.decided_by == "agreement":
            return self.test.p_value
        return None

    @property
    def beats_random(self):
        """Whether the outcome is "beats random"."""
        return self.outcome == "beats random"

    @property
    def z_score(self):
        """The agreement test's z-score (see :class:`RandomSubsetTest`)."""
        return self.test.z_score

    @property
    def p_value(self):
        """The agreement test's one-sided p-value."""
        return self.test.p_value

    @property
    def testable(self):
        """Whether any subset of this size could reach ``p_value <= alpha``: False when there
        are fewer than 1 / alpha such subsets (every one of them is then compared), e.g.
        one feature of 13."""
        return self.test.min_p_value <= self.alpha

    def summary(self):
        """A short plain-English paragraph stating what the verdict means."""
        crit = self.test.criterion.replace("_", " ")
        noun = "feature" if self.n_features == 1 else "features"
        verb = "it scores" if self.n_features == 1 else "they score"
        where = (f"{self.n_features} {noun} chosen the same way on half the samples "
                 f"score{'s' if self.n_features == 1 else ''}, on the other half,"
                 if self.held_out else verb)
        head = (f"{self.method} selected {self.n_features} {noun}. By the label-free "
                f"{crit} criterion {where} {self.test.statistic:.3f} against "
                f"{self.test.null_mean:.3f} +- {self.test.null_std:.3f} for "
                + (f"all {self.test.null.size} subsets" if self.test.exact
                   and self.test.null.size > 1 else "the only subset" if self.test.exact
                   else f"{self.test.null.size} random subsets")
                + f" of the same size (z = {self.z_score:.2f}, p = {self.p_value:.3g}). ")
        r = self.relevance
        if r is not None and r.n_relevant > 0:
            head += (f"{r.in_selection} of them {'is' if r.in_selection == 1 else 'are'} among "
                     f"the {r.n_relevant} features relevant in the rows tested (those whose "
                     f"values differ between the clusters of the other features), against "
                     f"{r.expected:.1f} for a random subset (p = {r.p_value:.3g}). ")
        if self.beats_random:
            body = (f"The selection is better than a random subset of the same size (decided "
                    f"by the {self.decided_by} test, p = {self.decisive_p_value:.3g}). ")
        elif self.outcome == "no better":
            body = (f"The selection is NO better than a random subset of the same size: "
                    f"{self.reason}. Do not read meaning into these particular features; keep "
                    "every feature or, to reduce their number, "
                    + ("take the least redundant ones (PivotedQR). "
                       if self.method.lower() != "pivotedqr"
                       else "take the ones of largest variance (MaxVariance). "))
        elif not self.testable:
            n = self.test.null.size
            rank = int(round(self.p_value * n))  # subsets scoring at least as high
            body = (f"Not shown: only {n} subsets of {self.n_features} of these features exist, "
                    f"so none can reach p <= {self.alpha:g}. By the criterion it ranks {rank} "
                    f"of {n}" + (" (ties count against it). " if rank > 1 else
                                 ", the best of them. "))
        else:
            body = (f"Not shown whether the selection beats a random subset of the same size: "
                    f"{self.reason}. ")
        if self.stability is not None:
            s = self.stability
            body += (f"Stability under resampling (Nogueira et al.): {s.value:.2f} "
                     f"[{s.ci_low:.2f}, {s.ci_high:.2f}] (1 = the same features every time, "
                     "0 = no more alike than random choices).")
        elif self.stability_note is not None:
            body += f"No stability: {self.stability_note}."
        if self.probability is not None:
            body += (f" On labelled data like this, a selection like it beat random subsets "
                     f"with probability {self.probability:.2f}.")
        return (head + body).strip()

    def to_dict(self):
        """The verdict as plain values (``ufsel select``'s sidecar): ``verdict`` (the
        summary), ``beats_random`` and ``verdict_details``."""
        s = self.stability
        return {
            "verdict": self.summary(), "beats_random": bool(self.beats_random),
            "verdict_details": {
                "outcome": self.outcome, "reason": self.reason,
                "criterion": self.test.criterion, "statistic": self.test.statistic,
                "random_mean": self.test.null_mean, "random_std": self.test.null_std,
                "z_score": self.z_score, "p_value": self.p_value, "alpha": self.alpha,
                "random_subsets": int(self.test.null.size),
                "every_subset": bool(self.test.exact), "testable": bool(self.testable),
                "held_out": bool(self.held_out),
                "decided_by": self.decided_by, "decisive_p_value": self.decisive_p_value,
                "probability": self.probability,
                "relevance": None if self.relevance is None else self.relevance.to_dict(),
                "stability_note": self.stability_note,
                "stability": None if s is None else {
                    "value": s.value, "ci_low": s.ci_low, "ci_high": s.ci_high,
                    "n_resamples": int(s.selections.shape[0])}}}

    def __repr__(self):
        r = self.relevance
        rel = ("None" if r is None else
               f"(in_selection={r.in_selection}, n_relevant={r.n_relevant}, "
               f"p_value={r.p_value:.3g})")
        return (f"Verdict({self.outcome!r}, decided_by={self.decided_by!r}, "
                f"agreement=(z_score={self.z_score:.2f}, p_value={self.p_value:.3g}), "
                f"relevance={rel}, probability={self.probability!r}, stability="
                f"{None if self.stability is None else round(self.stability.value, 3)})")


def assess_selection(X, support, *, estimator=None, method=None, n_clusters=None,
                     criterion=DEFAULT_CRITERION, n_draws=100, n_resamples=0, alpha=0.05,
                     held_out=False, stability_subsample=None, relevance=True,
                     recommendation=None, gate=None, probability=None, random_state=0):
    """Judge a feature selection without labels: random-subset tests and stability.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data the selection was made on.
    support : array-like of bool of shape (n_features,) or of int
        The selected columns, as a mask or as indices.
    estimator : ufsel selector, default=None
        The selector that made the selection (fitted or not). Needed for the
        stability, which refits clones of it on resamples of X; ignored when
        ``n_resamples=0``.
    method : str, default=None
        Name of the method shown in the verdict's summary; default the
        estimator's class name, or ``"the selection"``.
    n_clusters : int, default=None
        K, the coarsest scale of the cluster-agreement criteria; default
        :func:`~ufsel.model_selection.estimate_n_clusters` of X.
    criterion : {"multiscale_agreement", "cluster_agreement", "knn_preservation", \
            "reconstruction"}, default="multiscale_agreement"
        The label-free criterion (see :func:`random_subset_test`).
    n_draws : int, default=100
        Random subsets of the same size in the null distribution.
    n_resamples : int, default=0
        Bootstrap refits for the stability; 0 skips it.
    alpha : float, default=0.05
        Level of the test, and ``1 - alpha`` for the stability's interval.
    held_out : bool, default=False
        Test the procedure on held-out samples: ``estimator`` is refitted on
        a random half of the rows (at the selection's size), and its selection
        is tested on the other half, whose criterion it has never seen. A
        selection and its test on the same samples share their chance
        fluctuations: on pure noise the features that happen to agree with
        the sample's own clustering beat random subsets of that sample, yet
        not on new samples. Needs ``estimator`` and at least 20 samples;
        ``support`` is then only used for its size.
    stability_subsample : float in (0, 1) or None, default=None
        The stability's resamples: bootstrap samples (None) or subsamples of
        this fraction of the rows (see :func:`selection_stability`).
    relevance : bool, default=True
        Also run the relevance test (:func:`feature_relevance` on the rows
        tested, then the hypergeometric test of the selection's relevant
        features). False judges by the agreement test alone.
    recommendation : Recommendation or None, default=None
        The recommender's prediction for the method, whose record on the
        nearest benchmark data sets may back a passing agreement test
        (:class:`VerdictGate`).
    gate : VerdictGate or None, default=None
        The decision rule; None uses the default gate at ``alpha``.
    probability : float or None, default=None
        A scorer's probability that a selection like this beats random subsets
        on labelled data like X (recorded; see ``VerdictGate.min_probability``).
    random_state : int, RandomState or None, default=0
        Seeds the row sample of the criterion, the random subsets and the
        resamples.

    Returns
    -------
    verdict : Verdict
        ``beats_random``, ``p_value``, ``testable``, ``stability`` and a
        plain-English ``summary()``.

    See Also
    --------
    random_subset_test : The test alone.
    selection_stability : The stability alone.

    Examples
    --------
    >>> from ufsel import MCFS
    >>> from ufsel.datasets import make_planted_clusters
    >>> X, _, informative = make_planted_clusters(random_state=0)
    >>> sel = MCFS(n_features_to_select=10, n_clusters=3, random_state=0).fit(X)
    >>> assess_selection(X, sel.get_support(), estimator=sel).beats_random
    True
    """
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64)
    n, d = X.shape
    if criterion not in CRITERIA:
        raise ValueError(f"criterion={criterion!r} not understood, valid options are "
                         f"{set(CRITERIA)}.")
    for name, value, low in (("n_draws", n_draws, 2), ("n_resamples", n_resamples, 0)):
        if not isinstance(value, Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}.")
    if not isinstance(alpha, Real) or isinstance(alpha, bool) or not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    if n_resamples > 0 and estimator is None:
        raise ValueError("the stability (n_resamples > 0) refits the selector: pass estimator.")
    if held_out and (estimator is None or n < 20):
        raise ValueError("held_out=True refits the selector on half the samples: pass "
                         f"estimator, and at least 20 samples (got {n}).")
    cols = support_indices(support, d)
    rng = check_random_state(random_state)
    Xt = X
    if held_out:
        rows = rng.permutation(n)
        fit_rows, test_rows = np.sort(rows[: n // 2]), np.sort(rows[n // 2:])
        half = clone(estimator).set_params(n_features_to_select=int(cols.size))
        if "random_state" in half.get_params():
            half.set_params(random_state=int(rng.randint(2**31 - 1)))
        cols = support_indices(half.fit(X[fit_rows]).get_support(), d)
        Xt = X[test_rows]
    f = make_criterion(Xt, criterion, n_clusters=None if n_clusters is None
                       else int(min(n_clusters, Xt.shape[0] - 1)),
                       rng=np.random.RandomState(rng.randint(2**31 - 1)))
    with thread_limit(0):  # k-means on a row sample of a few columns: a small problem
        test = subset_test(f, cols, d, n_draws, rng, criterion, alpha=alpha)
    rel = None
    if relevance and d >= 2:
        K = n_clusters
        if K is None:  # the cluster criteria estimated it already; the others did not
            seed = int(rng.randint(2**31 - 1))
            scales = getattr(f.fn, "scales", None)
            K = scales[0] if scales else estimate_n_clusters(Xt, random_state=seed)
        fr = feature_relevance(f.fn.Xr, int(min(K, Xt.shape[0] - 1)),
                               random_state=int(rng.randint(2**31 - 1)))
        rel = relevance_test(fr, cols)
    stability = None
    if n_resamples > 0 and cols.size < d:
        template = estimator.__class__(**{**estimator.get_params(),
                                          "n_features_to_select": int(cols.size)})
        stability = selection_stability(template, X, n_resamples=max(2, n_resamples),
                                        subsample=stability_subsample, random_state=rng)
    if method is None:
        method = "the selection" if estimator is None else type(estimator).__name__
    gate = VerdictGate(alpha=alpha) if gate is None else gate
    outcome, reason, decided_by = gate.decide_with_test(
        test, rel, recommendation, testable=test.min_p_value <= alpha, probability=probability)
    return Verdict(stability=stability, test=test, outcome=outcome, alpha=alpha,
                   method=method, n_features=int(cols.size), held_out=held_out,
                   reason=reason, relevance=rel, stability_note=None,
                   probability=None if probability is None else float(probability),
                   decided_by=decided_by if outcome == "beats random" else None)
