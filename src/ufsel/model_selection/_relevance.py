"""Which features carry structure that the other features share: the cross-half relevance test.

A feature is *relevant* when its values differ between the clusters that k-means finds on
**other** features. The columns are split at random into two halves; k-means (K clusters)
on one half partitions the samples, and each feature of the other half is tested against
that partition by a one-way analysis of variance (the F test of its means across the
clusters). The halves then swap, and the whole is repeated on ``n_splits`` random splits;
a feature's p-value is its smallest one, and it is relevant when that p-value is below
``alpha / (n_features * n_splits)`` (Bonferroni over every test made).

Why across halves: a partition found on a feature is always associated with that feature
(k-means makes it so), so testing a feature against a partition it helped to find is
biased. A partition found on other columns is independent of a feature that is independent
of them, so on data whose features are independent (noise, whatever their marginal
distributions) the F test is valid and, with the Bonferroni bound, the chance that *any*
feature is called relevant is at most ``alpha``. On data with planted clusters, a planted
feature meets the clusters in the partition of the other half whenever that half holds
other planted features, which a few random splits make near certain.

What "relevant" means on data without clusters: on correlated features (a continuous
factor) k-means splits the samples along the factor, and the features that load on it are
relevant. They carry structure that the other features share, which a selection should
keep; the verdict treats them so (see :ref:`the guide <label-free>`).

The relevance is the evidence that AutoSelector reads beside its criterion: the candidates'
top features are scored by how many relevant ones they hold, the count does not exceed
their number when they are few, and the verdict's second test asks whether a selection
holds more of them than a random subset of its size would (a hypergeometric tail).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from ..utils import thread_limit

__all__ = ["FeatureRelevance", "RelevanceTest", "feature_relevance", "hypergeometric_tail",
           "relevance_test"]

#: Random column splits of the relevance test.
RELEVANCE_SPLITS = 4
#: The partitions' numbers of clusters, as multiples of K (an underestimated K merges
#: clusters that a feature separates).
RELEVANCE_SCALES = (1, 2)
#: Family-wise level of the relevance test (Bonferroni over features and splits).
RELEVANCE_ALPHA = 0.01


@dataclass(frozen=True)
class FeatureRelevance:
    """Result of :func:`feature_relevance`.

    Parameters
    ----------
    p_values : ndarray of shape (n_features,)
        Each feature's smallest F-test p-value against the partitions of the other
        halves (1.0 for a constant feature).
    relevant : ndarray of bool of shape (n_features,)
        ``p_values`` below ``alpha`` over the number of tests (Bonferroni).
    alpha : float
        The family-wise level.
    n_splits : int
        Random column splits.
    n_clusters : int
        K of the partitions.
    n_samples : int
        Rows the test was computed on.
    """

    p_values: np.ndarray
    relevant: np.ndarray
    alpha: float
    n_splits: int
    n_clusters: int
    n_samples: int

    @property
    def n_relevant(self):
        """The number of relevant features."""
        return int(np.count_nonzero(self.relevant))

    def __repr__(self):
        return (f"FeatureRelevance(n_relevant={self.n_relevant} of {self.relevant.size}, "
                f"n_clusters={self.n_clusters}, n_samples={self.n_samples})")


@dataclass(frozen=True)
class RelevanceTest:
    """Does a selection hold more relevant features than a random subset of its size?

    Parameters
    ----------
    n_relevant : int
        Relevant features among all ``n_features`` (:func:`feature_relevance`).
    in_selection : int
        Relevant features among the selected ones.
    n_features : int
        d.
    n_selected : int
        Size of the selection.
    expected : float
        Relevant features a random subset of that size holds on average,
        ``n_selected * n_relevant / n_features``.
    p_value : float
        The hypergeometric tail ``P(X >= in_selection)``, X the relevant
        features in a uniformly random subset of ``n_selected`` columns (1.0
        when no feature is relevant).
    n_samples : int
        Rows the relevance was computed on.
    """

    n_relevant: int
    in_selection: int
    n_features: int
    n_selected: int
    expected: float
    p_value: float
    n_samples: int = 0

    def to_dict(self):
        """The test as plain values."""
        return {"n_relevant": self.n_relevant, "in_selection": self.in_selection,
                "n_features": self.n_features, "n_selected": self.n_selected,
                "expected": self.expected, "p_value": self.p_value,
                "n_samples": self.n_samples}


def _anova_p_values(Z, labels):
    """One-way ANOVA F-test p-value of every column of Z across the groups ``labels``."""
    m = Z.shape[0]
    K = int(labels.max()) + 1
    counts = np.bincount(labels, minlength=K).astype(np.float64)
    groups = int(np.count_nonzero(counts))
    if groups < 2 or m - groups < 1:
        return np.ones(Z.shape[1])
    sums = np.zeros((K, Z.shape[1]))
    np.add.at(sums, labels, Z)
    grand = Z.mean(axis=0)
    means = sums / np.maximum(counts, 1.0)[:, None]
    ssb = (counts[:, None] * (means - grand) ** 2).sum(axis=0)
    sst = ((Z - grand) ** 2).sum(axis=0)
    ssw = sst - ssb
    with np.errstate(divide="ignore", invalid="ignore"):
        F = (ssb / (groups - 1)) / (ssw / (m - groups))
    p = stats.f.sf(F, groups - 1, m - groups)
    p[~np.isfinite(p) | (sst <= 1e-12 * max(float(sst.max()), 1e-300))] = 1.0
    p[(ssw <= 0) & (ssb > 0)] = 0.0  # a column that is constant within every cluster
    return p


def _partition(Z, K, seed):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Number of distinct clusters",
                                category=ConvergenceWarning)
        return KMeans(K, n_init=3, random_state=seed).fit(Z).labels_


def feature_relevance(Xr, n_clusters, *, n_splits=RELEVANCE_SPLITS, alpha=RELEVANCE_ALPHA,
                      random_state):
    """The cross-half relevance test of every feature (see the module docstring).

    Parameters
    ----------
    Xr : ndarray of shape (n_samples, n_features)
        The rows to test on (dense; the route passes its criterion's row sample).
    n_clusters : int >= 2
        K of the partitions.
    n_splits : int, default=4
        Random column splits; each feature is tested against ``n_splits``
        partitions of other columns.
    alpha : float, default=0.01
        Family-wise level (Bonferroni over ``n_features * n_splits * 2`` tests).
    random_state : int or RandomState
        Seeds the splits and the k-means starts.

    Returns
    -------
    FeatureRelevance
    """
    rng = check_random_state(random_state)
    Xr = np.asarray(Xr, dtype=np.float64)
    m, d = Xr.shape
    K = int(min(n_clusters, m - 1))
    scales = sorted({int(min(c * K, m - 1)) for c in RELEVANCE_SCALES})
    p = np.ones(d)
    if d >= 2 and K >= 2:
        with thread_limit(0):  # k-means on a row sample: a small problem
            for _ in range(n_splits):
                perm = rng.permutation(d)
                halves = (perm[: d // 2], perm[d // 2:])
                seed = int(rng.randint(2**31 - 1))
                for tested, other in (halves, halves[::-1]):
                    for Kc in scales:
                        labels = _partition(Xr[:, other], Kc, seed)
                        p[tested] = np.minimum(p[tested],
                                               _anova_p_values(Xr[:, tested], labels))
    relevant = p < alpha / (d * n_splits * len(scales))
    return FeatureRelevance(p_values=p, relevant=relevant, alpha=float(alpha),
                            n_splits=int(n_splits), n_clusters=K, n_samples=int(m))


def hypergeometric_tail(in_selection, n_features, n_relevant, n_selected):
    """``P(X >= in_selection)``, X the relevant features in a uniformly random subset.

    Parameters
    ----------
    in_selection : int
        Relevant features in the selection.
    n_features : int
        d.
    n_relevant : int
        Relevant features among the d.
    n_selected : int
        Size of the selection.

    Returns
    -------
    p_value : float
        The tail probability; 1.0 when no feature is relevant.
    """
    if n_relevant == 0:
        return 1.0
    return min(1.0, float(stats.hypergeom.sf(in_selection - 1, n_features, n_relevant,
                                             n_selected)))


def relevance_test(relevance, cols):
    """The hypergeometric test of a selection's relevant features (:class:`RelevanceTest`).

    Parameters
    ----------
    relevance : FeatureRelevance
        The relevance of every feature.
    cols : array-like of int
        The selected columns.

    Returns
    -------
    RelevanceTest
    """
    cols = np.asarray(cols, dtype=np.intp)
    d = relevance.relevant.size
    R = relevance.n_relevant
    k = int(cols.size)
    s = int(np.count_nonzero(relevance.relevant[cols]))
    return RelevanceTest(n_relevant=R, in_selection=s, n_features=int(d), n_selected=k,
                         expected=k * R / d, p_value=hypergeometric_tail(s, d, R, k),
                         n_samples=relevance.n_samples)
