"""The label-free verdict on a selection: does it beat random subsets, and how stable is it?"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_array, check_random_state

from ..utils import thread_limit
from ._criteria import CRITERIA, DEFAULT_CRITERION, make_criterion
from ._random_subset import RandomSubsetTest, subset_test, support_indices
from ._stability import Stability, selection_stability

__all__ = ["Verdict", "assess_selection"]


@dataclass(frozen=True)
class Verdict:
    """How far the selection can be trusted, judged without labels.

    Parameters
    ----------
    stability : Stability or None
        Nogueira et al.'s stability of the chosen configuration under
        bootstrap resampling (None when ``n_resamples=0``).
    test : RandomSubsetTest
        The chosen subset against fresh random subsets of the same size.
    beats_random : bool
        ``p_value <= alpha`` (and ``z_score > 0``).
    alpha : float
        Level of the test.
    method : str
        Name of the method, for the summary.
    n_features : int
        Size of the selection.
    held_out : bool
        Whether the test judged a selection made the same way on half the
        samples, on the other half (see :func:`assess_selection`).
    cannot_tell : str or None
        Why the verdict withholds "beats random" although the test passed (the
        evidence from the benchmark data sets is weak, see
        :class:`~ufsel.model_selection.AutoSelector`); None otherwise.
    """

    stability: Stability | None
    test: RandomSubsetTest
    beats_random: bool
    alpha: float
    method: str
    n_features: int
    held_out: bool = False
    cannot_tell: str | None = None

    @property
    def outcome(self):
        """``"beats random"``, ``"no better"`` or ``"cannot tell"``."""
        if self.beats_random:
            return "beats random"
        if self.cannot_tell is not None or not self.testable:
            return "cannot tell"
        return "no better"

    @property
    def z_score(self):
        """The test's z-score (see :class:`RandomSubsetTest`)."""
        return self.test.z_score

    @property
    def p_value(self):
        """The test's one-sided p-value."""
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
        if self.beats_random:
            body = "The selection is better than a random subset of the same size. "
        elif self.cannot_tell is not None:
            body = (f"The test passes, but the verdict cannot tell whether the selection "
                    f"beats a random subset of the same size: {self.cannot_tell}. ")
        elif not self.testable:
            n = self.test.null.size
            rank = int(round(self.p_value * n))  # subsets scoring at least as high
            body = (f"Only {n} subsets of {self.n_features} of these features exist, so none "
                    f"can reach p <= {self.alpha:g}: the test cannot tell whether this "
                    f"selection beats a random one. By the criterion it ranks {rank} of {n}"
                    + (" (ties count against it). " if rank > 1 else ", the best of them. "))
        else:
            body = ("The selection is NO better than a random subset of the same size: "
                    "a random choice of features would serve as well, so do not read "
                    "meaning into these particular features. Keep every feature or, to "
                    "reduce their number, take the least redundant ones (PivotedQR). ")
        if self.stability is not None:
            s = self.stability
            body += (f"Stability under resampling (Nogueira et al.): {s.value:.2f} "
                     f"[{s.ci_low:.2f}, {s.ci_high:.2f}] (1 = the same features every time, "
                     "0 = no more alike than random choices).")
        return (head + body).strip()

    def to_dict(self):
        """The verdict as plain values (``ufsel select``'s sidecar): ``verdict`` (the
        summary), ``beats_random`` and ``verdict_details``."""
        s = self.stability
        return {
            "verdict": self.summary(), "beats_random": bool(self.beats_random),
            "verdict_details": {
                "outcome": self.outcome, "cannot_tell": self.cannot_tell,
                "criterion": self.test.criterion, "statistic": self.test.statistic,
                "random_mean": self.test.null_mean, "random_std": self.test.null_std,
                "z_score": self.z_score, "p_value": self.p_value, "alpha": self.alpha,
                "random_subsets": int(self.test.null.size),
                "every_subset": bool(self.test.exact), "testable": bool(self.testable),
                "held_out": bool(self.held_out),
                "stability": None if s is None else {
                    "value": s.value, "ci_low": s.ci_low, "ci_high": s.ci_high,
                    "n_resamples": int(s.selections.shape[0])}}}

    def __repr__(self):
        return (f"Verdict({self.outcome!r}, z_score={self.z_score:.2f}, "
                f"p_value={self.p_value:.3g}, stability="
                f"{None if self.stability is None else round(self.stability.value, 3)})")


def assess_selection(X, support, *, estimator=None, method=None, n_clusters=None,
                     criterion=DEFAULT_CRITERION, n_draws=100, n_resamples=0, alpha=0.05,
                     held_out=False, stability_subsample=None, random_state=0):
    """Judge a feature selection without labels: random-subset test and stability.

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
    stability = None
    if n_resamples > 0 and cols.size < d:
        template = estimator.__class__(**{**estimator.get_params(),
                                          "n_features_to_select": int(cols.size)})
        stability = selection_stability(template, X, n_resamples=max(2, n_resamples),
                                        subsample=stability_subsample, random_state=rng)
    if method is None:
        method = "the selection" if estimator is None else type(estimator).__name__
    return Verdict(stability=stability, test=test,
                   beats_random=bool(test.p_value <= alpha and test.z_score > 0),
                   alpha=alpha, method=method, n_features=int(cols.size), held_out=held_out)
