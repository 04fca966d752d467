"""A label-free curve of a ranking's quality against the number of features, and a suggested count."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.utils import check_array, check_random_state

from ..utils import thread_limit
from ._criteria import DEFAULT_CRITERION, MAX_CRITERION_SAMPLES, make_criterion
from ._random_subset import null_subsets, summarize_null

__all__ = ["FeatureCountCurve", "suggest_n_features", "default_counts", "DEFAULT_RATIOS",
           "DEFAULT_TOLERANCE", "DEFAULT_N_SE", "DEFAULT_PREFER"]

#: The plateau rule's defaults (chosen on the development half of the split,
#: ``benchmarks/label_free/split.toml``).
DEFAULT_TOLERANCE = 0.0
DEFAULT_N_SE = 2.0
DEFAULT_PREFER = "most"

#: k-means runs averaged for the ranking's own point of the curve (the random subsets'
#: mean already averages n_draws runs).
ESTIMATE_REPEATS = 3

#: Fractions of d tried by default (with every count when d <= 20).
DEFAULT_RATIOS = (0.005, 0.01, 0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5)


def default_counts(n_features):
    """The counts of the default grid: ``ceil(r d)`` for r in :data:`DEFAULT_RATIOS`.

    Parameters
    ----------
    n_features : int
        d, the number of features.

    Returns
    -------
    counts : ndarray of int
        The counts, ascending, never above half of d (the largest ratio is 50 %);
        every count from 1 to ``max(1, d // 2)`` when d <= 20.
    """
    if n_features <= 20:
        return np.arange(1, max(n_features // 2, 1) + 1)
    c = np.ceil(np.asarray(DEFAULT_RATIOS) * n_features * (1 - 1e-12)).astype(int)
    return np.unique(np.clip(c, 1, n_features // 2))


@dataclass(frozen=True)
class FeatureCountCurve:
    """Result of :func:`suggest_n_features`.

    Parameters
    ----------
    n_features : int
        The suggested count.
    counts : ndarray of int
        The counts tried, ascending.
    values : ndarray
        The criterion of the ranking's top ``counts[i]`` features.
    null_mean, null_std : ndarray
        Mean and standard deviation of the criterion over random subsets of
        each size.
    excess : ndarray
        ``values - null_mean``: the ranking's advantage over chance at each count.
    criterion : str
    tolerance : float
    prefer : str
        The plateau rule's end (see :func:`suggest_n_features`).
    n_se : float
        The plateau rule's margin in standard errors.
    n_draws : int
        Random subsets per count.
    """

    n_features: int
    counts: np.ndarray
    values: np.ndarray
    null_mean: np.ndarray
    null_std: np.ndarray
    excess: np.ndarray
    criterion: str
    tolerance: float
    prefer: str = DEFAULT_PREFER
    n_se: float = DEFAULT_N_SE
    n_draws: int = 10

    def suggest(self, *, tolerance=None, n_se=None, prefer=None):
        """The count the plateau rule gives on this curve with other settings.

        Parameters
        ----------
        tolerance, n_se, prefer : optional
            As in :func:`suggest_n_features`; None keeps the curve's own.

        Returns
        -------
        n_features : int
            The suggested count.
        """
        n_draws = getattr(self, "n_draws", 10)
        return _rule(self.counts, self.excess, self.null_std / np.sqrt(n_draws),
                     self.tolerance if tolerance is None else tolerance,
                     self.n_se if n_se is None else n_se,
                     self.prefer if prefer is None else prefer)

    @property
    def z_scores(self):
        """``excess / null_std`` per count (0 where the random subsets do not vary)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.null_std > 0, self.excess / self.null_std, 0.0)

    def __repr__(self):
        return (f"FeatureCountCurve(n_features={self.n_features}, counts={self.counts.tolist()}, "
                f"criterion={self.criterion!r})")


def _rule(counts, excess, se, tolerance, n_se, prefer):
    i = int(np.argmax(excess))
    best = excess[i]
    # within tolerance of the best, or not told apart from it by n_se standard errors
    margin = np.maximum(tolerance * abs(best), n_se * np.sqrt(se[i] ** 2 + se ** 2))
    on = excess >= best - margin
    # the plateau is the run of counts around the best one that are all on it
    step = -1 if prefer == "fewest" else 1
    j = i
    while 0 <= j + step < counts.size and on[j + step]:
        j += step
    return int(counts[j])


def suggest_n_features(X, ranking, *, n_clusters=None, counts=None, criterion=DEFAULT_CRITERION,
                       tolerance=DEFAULT_TOLERANCE, n_se=DEFAULT_N_SE, prefer=DEFAULT_PREFER,
                       n_draws=10,
                       n_neighbors=10,
                       max_samples=MAX_CRITERION_SAMPLES,
                       random_state=None):
    """Suggest how many of a ranking's top features to keep, without labels.

    For each count k in ``counts`` the label-free criterion (see
    :func:`random_subset_test`; default the agreement of k-means on the top k
    features with k-means on all features) of the ranking's top k features is
    computed, together with its mean and spread over ``n_draws`` random
    subsets of k features. The rule (a plateau rule on the advantage over
    chance):

        n_features = the largest (``prefer="most"``) or smallest
        (``prefer="fewest"``) k on the plateau of the excess over random,
        ``values(k) - null_mean(k)``: the run of counts next to the one with
        the largest excess whose excess is within ``tolerance`` times the
        largest of it, or within ``n_se`` standard errors of the difference
        (each excess's standard error is ``null_std(k) / sqrt(n_draws)``),
        so that chance differences between the counts do not decide.

    Why the excess and not the criterion itself: any subset's criterion grows
    towards its value for all features as k grows (random subsets of half the
    features already cluster the samples almost as all features do), so a
    plateau of the criterion lies at large counts where the choice of
    features no longer matters, and a subset of that size cannot be told
    apart from a random one. The excess is about 0 there and at counts where
    the ranking is no better than chance, and largest where the ranking's
    choice matters most. The plateau of the excess is often wide: when two
    strong features already recover the clusters, further informative
    features add little agreement, and the excess stays near its maximum
    until random subsets catch up. The default keeps the plateau's largest
    count, every feature that still adds as much over chance, rather than its
    smallest; the smallest one (``prefer="fewest"``) keeps one or two features
    on such data, too few for the random-subset test to tell anything
    (``docs/guide/label_free.md``).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    ranking : array-like of int, shape (n_features,)
        ``ranking[j]`` is feature j's rank, 1 = best (a selector's
        ``ranking_``).
    n_clusters : int, optional
        K (the coarsest scale) for the cluster-agreement criteria; default
        :func:`estimate_n_clusters`.
    counts : array-like of int, optional
        The counts to try; default :func:`default_counts` (``ceil(r d)`` for
        r = 0.5 %, 1 %, 2 %, 3 %, 5 %, 7.5 %, 10 %, 15 %, 20 %, 30 %, 50 %;
        every count below d when d <= 20).
    criterion : {"multiscale_agreement", "cluster_agreement", "knn_preservation", \
            "reconstruction"}, default="multiscale_agreement"
    tolerance : float, default=0.0
        Relative shortfall from the largest excess that still counts as on
        the plateau.
    n_se : float, default=2.0
        Shortfall, in standard errors of the difference, that still counts as
        on the plateau.
    prefer : {"most", "fewest"}, default="most"
        Which end of the plateau to suggest.
    n_draws : int, default=10
        Random subsets per count.
    n_neighbors, max_samples : see :func:`random_subset_test`.
    random_state : int, RandomState or None

    Returns
    -------
    FeatureCountCurve
        ``.n_features``, ``.counts``, ``.values`` and the null curve.
    """
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64)
    d = X.shape[1]
    ranking = np.asarray(ranking)
    if ranking.shape != (d,) or not np.array_equal(np.sort(ranking), np.arange(1, d + 1)):
        raise ValueError(
            f"ranking must be a permutation of 1..{d} (rank of each feature, 1 = best), such as "
            "a fitted selector's ranking_."
        )
    if not 0 <= tolerance < 1:
        raise ValueError(f"tolerance must be in [0, 1), got {tolerance!r}.")
    if not isinstance(n_se, Real) or isinstance(n_se, bool) or n_se < 0:
        raise ValueError(f"n_se must be a number >= 0, got {n_se!r}.")
    if prefer not in ("most", "fewest"):
        raise ValueError(f"prefer={prefer!r} not understood, valid options are "
                         "{'most', 'fewest'}.")
    if not isinstance(n_draws, Integral) or isinstance(n_draws, bool) or n_draws < 2:
        raise ValueError(f"n_draws must be an integer >= 2, got {n_draws!r}.")
    if counts is None:
        counts = default_counts(d)
    else:
        counts = np.unique(np.asarray(counts))
        if counts.size == 0 or counts.dtype.kind not in "iu" or counts[0] < 1 or counts[-1] > d:
            raise ValueError(f"counts must be integers in [1, {d}], got {counts!r}.")
    rng = check_random_state(random_state)
    f = make_criterion(X, criterion, n_clusters=n_clusters, n_neighbors=n_neighbors,
                       max_samples=max_samples, rng=rng)
    return feature_count_curve(f, ranking, counts, criterion=criterion, tolerance=tolerance,
                               n_se=n_se, prefer=prefer, n_draws=n_draws, rng=rng)


def feature_count_curve(f, ranking, counts, *, criterion, tolerance, n_se, prefer, n_draws,
                        rng):
    """The curve of :func:`suggest_n_features` from a criterion function already built.

    Parameters
    ----------
    f : callable
        ``f(columns) -> float``, from :func:`make_criterion`.
    ranking : ndarray of int of shape (n_features,)
        Validated ranks, 1 = best.
    counts : ndarray of int
        The counts to try, ascending.
    criterion : str
        The criterion's name (recorded in the result).
    tolerance, n_se, prefer, n_draws
        As in :func:`suggest_n_features`.
    rng : RandomState
        Draws the random subsets.

    Returns
    -------
    FeatureCountCurve
        The curve and the suggested count.
    """
    d = ranking.size
    order = np.argsort(ranking, kind="stable")
    values, mean, std = (np.empty(counts.size) for _ in range(3))
    with thread_limit(0):  # k-means on a row sample of a few columns: a small problem
        for i, k in enumerate(counts):
            values[i] = f(np.sort(order[:k]), repeats=ESTIMATE_REPEATS)
            subsets, exact = null_subsets(rng, d, int(k), n_draws)
            mean[i], std[i], _, _ = summarize_null(values[i], np.array([f(c) for c in subsets]),
                                                   exact)
    excess = values - mean
    se = std / np.sqrt(n_draws)
    return FeatureCountCurve(n_features=_rule(counts, excess, se, tolerance, n_se, prefer),
                             counts=counts,
                             values=values, null_mean=mean, null_std=std, excess=excess,
                             criterion=criterion, tolerance=tolerance, prefer=prefer,
                             n_se=n_se, n_draws=int(n_draws))
