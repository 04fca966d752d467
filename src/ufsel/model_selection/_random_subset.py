"""Is a feature subset better than random subsets of the same size, by a label-free criterion?"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from numbers import Integral

import numpy as np
from sklearn.utils import check_array, check_random_state

from ..evaluation._protocol import check_selected
from ..utils import thread_limit
from ._criteria import DEFAULT_CRITERION, MAX_CRITERION_SAMPLES, make_criterion

__all__ = ["RandomSubsetTest", "random_subset_test", "support_indices"]


@dataclass(frozen=True)
class RandomSubsetTest:
    """Result of :func:`random_subset_test`.

    Parameters
    ----------
    statistic : float
        The criterion of the tested subset (higher is better).
    null : ndarray of shape (n_draws,) or (n_subsets,)
        The criterion of each random subset of the same size, or of every
        subset of that size when there are at most ``n_draws`` (``exact``).
    null_mean, null_std : float
        Mean and standard deviation (ddof=1) of ``null``.
    z_score : float
        ``(statistic - null_mean) / null_std`` (0 when ``null_std`` is 0 and
        the statistic equals the null mean, +-inf when it differs).
    p_value : float
        One-sided p-value: empirical, ``(1 + #{null >= statistic}) / (1 + n_draws)``,
        never 0 (Phipson & Smyth, 2010); exact, ``#{null >= statistic} / n_subsets``
        (the tested subset is one of them, so at least ``1 / n_subsets``).
    criterion : str
    n_features : int
        Size of the subset.
    exact : bool
        ``null`` holds every subset of this size (the p-value is exact).
    max_draws : int or None
        With a sequential test (:func:`subset_test` with ``alpha``), the number
        of draws it would have made; ``null`` then holds the draws it made
        before the outcome at ``alpha`` was decided. None otherwise.
    """

    statistic: float
    null: np.ndarray
    null_mean: float
    null_std: float
    z_score: float
    p_value: float
    criterion: str
    n_features: int
    exact: bool = False
    max_draws: int | None = None

    @property
    def min_p_value(self):
        """The smallest p-value this test can give: ``1 / n_subsets`` when exact,
        ``1 / (1 + n_draws)`` otherwise. When it exceeds a level alpha, no subset
        of this size can be shown to beat random ones at that level."""
        if self.exact:
            return 1.0 / self.null.size
        return 1.0 / (1.0 + (self.null.size if self.max_draws is None else self.max_draws))

    def __repr__(self):
        return (f"RandomSubsetTest(criterion={self.criterion!r}, k={self.n_features}, "
                f"statistic={self.statistic:.4f}, null={self.null_mean:.4f}+-{self.null_std:.4f}, "
                f"z={self.z_score:.2f}, p={self.p_value:.3g})")


def support_indices(support, n_features):
    """Column indices from a boolean mask or an index array (validated), sorted."""
    return np.sort(check_selected(support, n_features, name="support"))


def summarize_null(stat, null, exact=False):
    """z-score and one-sided p-value of ``stat`` against ``null``: the criterion of random
    draws (empirical p-value), or of every subset of the size when ``exact`` (``stat``'s own
    subset among them, so the count is at least one)."""
    mean = float(null.mean())
    std = float(null.std(ddof=1)) if null.size > 1 else 0.0
    if std > 0:
        z = (stat - mean) / std
    else:
        z = 0.0 if stat == mean else float(np.sign(stat - mean) * np.inf)
    hits = np.count_nonzero(null >= stat)
    p = max(hits, 1) / null.size if exact else (1.0 + hits) / (1.0 + null.size)
    return mean, std, float(z), float(p)


def random_draws(rng, n_features, size, n_draws):
    """``n_draws`` random subsets of ``size`` distinct columns (each sorted)."""
    return [np.sort(rng.choice(n_features, size, replace=False)) for _ in range(n_draws)]


def _enumerable(n_features, size, n_draws):
    """Whether there are at most ``n_draws`` subsets of ``size`` columns."""
    # C(d, k) >= d for 0 < k < d, so only d <= n_draws (or k in {0, d}) can qualify;
    # checking that first keeps math.comb off huge d (C(10**6, 10**5) takes 0.45 s)
    return (size in (0, n_features) or n_features <= n_draws
            and math.comb(n_features, size) <= n_draws)


def null_subsets(rng, n_features, size, n_draws):
    """The subsets of the null distribution, and whether they are all of them.

    Every one of the C(n_features, size) subsets of ``size`` columns when there are at
    most ``n_draws`` (the null is then exact, and small: 13 subsets of one of wine's 13
    features), otherwise ``n_draws`` uniform random draws (:func:`random_draws`).
    """
    if _enumerable(n_features, size, n_draws):
        return [np.array(c) for c in itertools.combinations(range(n_features), size)], True
    return random_draws(rng, n_features, size, n_draws), False


def subset_test(f, cols, n_features, n_draws, rng, criterion, *, alpha=None):
    """:class:`RandomSubsetTest` of the columns ``cols`` by the criterion function ``f``.

    With ``alpha``, random draws stop as soon as the outcome at level ``alpha`` is
    decided (Besag & Clifford, 1991): once ``h`` draws score at least as high as the
    selection, where ``h`` is the smallest count with ``(1 + h) / (1 + n_draws) > alpha``,
    no further draws can bring the p-value to ``alpha``. The p-value is then the
    sequential one, ``h / draws made``, above ``alpha`` like the full test's; a
    selection that beats random subsets still gets all ``n_draws`` draws, and its
    p-value is the one of the full test.
    """
    stat = f(cols)
    if alpha is None or _enumerable(n_features, cols.size, n_draws):
        subsets, exact = null_subsets(rng, n_features, cols.size, n_draws)
        null = np.array([f(c) for c in subsets])
        mean, std, z, p = summarize_null(stat, null, exact)
        return RandomSubsetTest(statistic=stat, null=null, null_mean=mean, null_std=std,
                                z_score=z, p_value=p, criterion=criterion,
                                n_features=int(cols.size), exact=exact)
    # at least one hit: with none, no subset of this size could reach alpha anyway
    stop = max(1, next(h for h in range(n_draws + 2) if (1.0 + h) / (1.0 + n_draws) > alpha))
    null, hits = [], 0
    for _ in range(n_draws):
        null.append(f(random_draws(rng, n_features, cols.size, 1)[0]))
        hits += null[-1] >= stat
        if hits >= stop and len(null) < n_draws:
            break
    null = np.array(null)
    mean, std, z, p = summarize_null(stat, null, False)
    if null.size < n_draws:
        p = float(np.count_nonzero(null >= stat) / null.size)
    return RandomSubsetTest(statistic=stat, null=null, null_mean=mean, null_std=std, z_score=z,
                            p_value=p, criterion=criterion, n_features=int(cols.size),
                            exact=False, max_draws=int(n_draws))


def random_subset_test(X, support, *, criterion=DEFAULT_CRITERION, n_draws=100,
                       n_clusters=None, n_neighbors=10, max_samples=MAX_CRITERION_SAMPLES,
                       random_state=None):
    """Compare a feature subset with random subsets of the same size, without labels.

    The criterion (see :mod:`ufsel.model_selection._criteria`) is evaluated
    on ``support`` and on ``n_draws`` subsets of the same size drawn uniformly
    at random without replacement from all columns; the result reports the
    z-score and the empirical p-value ``(1 + #{null >= statistic}) / (1 +
    n_draws)``, the probability under "the subset is no better than a random
    one" of a value at least as high (a one-sided permutation-style test;
    the smallest attainable p-value is ``1 / (1 + n_draws)``). When there are
    at most ``n_draws`` subsets of that size (C(d, k), e.g. 13 subsets of one
    of 13 features), every one of them is evaluated instead and the p-value
    is exact, ``#{subsets scoring >= statistic} / C(d, k)``, at least
    ``1 / C(d, k)``: with fewer than 1 / alpha subsets no subset can be shown
    to beat random ones at level alpha (``min_p_value``).

    Default criterion, ``"multiscale_agreement"``: the adjusted Rand index
    between k-means on the subset and k-means on all features, averaged over
    K, 2K, 4K, ... clusters up to sqrt(n) (``"cluster_agreement"``: at K
    only; see :mod:`ufsel.model_selection._criteria`). Why this one: the question
    is whether clustering on the chosen features finds the clusters that the
    data support, and this asks it directly, at the scale of clusters, with a
    chance-corrected score. It finds planted informative features among
    noise (the test suite), where the k-NN preservation does not (its
    within-cluster neighbours are decided by the noise features), and the
    reconstruction error rewards variance rather than structure. Its
    rank correlation with the label-based k-means accuracy across the
    selections of a data set is weak (a mean Spearman correlation between
    -0.06 and 0.14 for every criterion on eight shared data sets;
    docs/guide/label_free.md, "Measured"). Its limit: it measures
    agreement with the clustering of all features, so it cannot recognise a
    subset that clusters better than all features do.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    support : array-like of bool (n_features,) or of int
        The subset: a mask or column indices.
    criterion : {"multiscale_agreement", "cluster_agreement", "knn_preservation", \
            "reconstruction"}, default="multiscale_agreement"
    n_draws : int, default=100
        Random subsets drawn; every subset when there are at most this many.
    n_clusters : int, optional
        K (the coarsest scale) for the cluster-agreement criteria; default
        :func:`estimate_n_clusters` (X).
    n_neighbors : int, default=10
        For ``"knn_preservation"``.
    max_samples : int, default=1000
        The criterion is computed on at most this many rows, drawn at random.
    random_state : int, RandomState or None
        Seeds the row sample and the random subsets.

    Returns
    -------
    RandomSubsetTest
    """
    if not isinstance(n_draws, Integral) or isinstance(n_draws, bool) or n_draws < 2:
        raise ValueError(f"n_draws must be an integer >= 2, got {n_draws!r}.")
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64)
    d = X.shape[1]
    cols = support_indices(support, d)
    rng = check_random_state(random_state)
    f = make_criterion(X, criterion, n_clusters=n_clusters, n_neighbors=n_neighbors,
                       max_samples=max_samples, rng=rng)
    with thread_limit(0):  # k-means on a row sample of a few columns: a small problem
        return subset_test(f, cols, d, n_draws, rng, criterion)
