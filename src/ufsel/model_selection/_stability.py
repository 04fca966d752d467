"""Stability of a feature selection under resampling (Nogueira, Sechidis & Brown, JMLR 2018)."""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral

import numpy as np
from scipy.stats import norm
from sklearn.base import clone
from sklearn.utils import check_array, check_random_state

__all__ = ["Stability", "selection_stability", "stability_from_selections"]


@dataclass(frozen=True)
class Stability:
    """Result of :func:`selection_stability`.

    Parameters
    ----------
    value : float
        The estimate Phi-hat: 1 for identical selections, about 0 for
        selections no more alike than random ones of the same sizes, negative
        when they overlap less than chance.
    variance : float
        Its estimated asymptotic variance.
    ci_low, ci_high : float
        The ``1 - alpha`` asymptotic normal confidence interval.
    alpha : float
    selections : ndarray of bool, shape (M, d)
        The M selections the estimate is computed from.
    """

    value: float
    variance: float
    ci_low: float
    ci_high: float
    alpha: float
    selections: np.ndarray

    def __repr__(self):
        return (f"Stability(value={self.value:.3f}, ci=[{self.ci_low:.3f}, {self.ci_high:.3f}], "
                f"M={self.selections.shape[0]})")


def stability_from_selections(Z, *, alpha=0.05):
    """Nogueira-Sechidis-Brown stability of M selections, with its confidence interval.

    ``Z`` is the binary M x d matrix with ``Z[i, f] = 1`` when selection i
    contains feature f. With ``p_f`` the fraction of selections containing f,
    ``k_i`` the size of selection i and ``kbar`` the mean size, the estimator
    (JMLR 19(174), 2018, Definition 3 / Eq. 4) is

        Phi = 1 - [ (1/d) sum_f M/(M-1) p_f (1 - p_f) ] / [ (kbar/d) (1 - kbar/d) ],

    the mean unbiased per-feature selection variance divided by its value
    for random selections of the same mean size, so it is corrected for
    chance: 0 in expectation for independent random selections, 1 when all
    selections are equal. Its variance (their Theorem 9, the asymptotic
    normality of the estimator as a function of per-selection terms) is
    ``(4 / M^2) sum_i (g_i - mean g)^2`` with

        g_i = [ pa_i - pe_i ] / (1 - pe),
        pa_i = 1 - k_i/d - kbar/d + (2/d) sum_f Z_if p_f,
        pe_i = (1 - Phi) (kbar/d * k_i/d + (1 - kbar/d)(1 - k_i/d)),
        pe = 1 - 2 (kbar/d)(1 - kbar/d),

    as in the authors' reference code (``getStabilityVariance.m``), and the
    interval is ``Phi -/+ z_{1 - alpha/2} sqrt(variance)``.

    Parameters
    ----------
    Z : array-like of shape (M, d), binary
        At least two selections; not all empty, not all full.
    alpha : float, default=0.05

    Returns
    -------
    Stability
    """
    Z = np.asarray(Z)
    if Z.ndim != 2 or Z.shape[0] < 2:
        raise ValueError(
            f"Z must be a binary matrix with one row per selection and at least 2 rows, got "
            f"shape {Z.shape}."
        )
    if not np.isin(Z, (0, 1)).all():
        raise ValueError("Z must be binary (0/1 or bool): Z[i, f] = 1 when selection i holds f.")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}.")
    Z = Z.astype(np.float64)
    M, d = Z.shape
    k = Z.sum(axis=1)
    kbar = k.mean()
    if kbar == 0 or kbar == d:
        raise ValueError(
            "the stability is undefined when every selection is empty or every selection holds "
            "all features (there is no choice to be stable about)."
        )
    p = Z.mean(axis=0)
    q = kbar / d
    denom = q * (1.0 - q)
    phi = 1.0 - (M / (M - 1.0)) * np.mean(p * (1.0 - p)) / denom
    pe = 1.0 - 2.0 * denom
    pa_i = 1.0 - k / d - q + (2.0 / d) * (Z @ p)
    pe_i = (1.0 - phi) * (q * k / d + (1.0 - q) * (1.0 - k / d))
    g = (pa_i - pe_i) / (1.0 - pe)
    var = float(4.0 / M**2 * np.sum((g - g.mean()) ** 2))
    half = float(norm.ppf(1.0 - alpha / 2.0) * np.sqrt(var))
    return Stability(value=float(phi), variance=var, ci_low=float(phi) - half,
                     ci_high=float(phi) + half, alpha=alpha, selections=Z.astype(bool))


def selection_stability(selector, X, *, n_resamples=20, subsample=None, alpha=0.05,
                        random_state=None):
    """Stability of ``selector``'s selection on X under resampling of the samples.

    The selector is cloned and fitted on ``n_resamples`` resamples of the rows
    of X, and :func:`stability_from_selections` is applied to the selections
    (``get_support()`` of each fit, so the selector's ``n_features_to_select``
    fixes the size). Resamples are bootstrap samples (n rows drawn with
    replacement, as in Nogueira et al.'s experiments) by default, or, with
    ``subsample`` a fraction in (0, 1), ``ceil(subsample * n)`` rows drawn
    without replacement (use this for graph-based selectors if duplicated rows
    matter). A selector with a ``random_state`` parameter gets a different seed
    per resample, drawn from ``random_state``, so that its own randomness
    counts towards the (in)stability.

    Parameters
    ----------
    selector : ufsel selector (unfitted template)
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    n_resamples : int, default=20
        M, at least 2.
    subsample : float in (0, 1), optional
    alpha : float, default=0.05
        For the ``1 - alpha`` confidence interval.
    random_state : int, RandomState or None

    Returns
    -------
    Stability
        ``value``, ``ci_low``, ``ci_high`` (see :class:`Stability`).

    References
    ----------
    S. Nogueira, K. Sechidis, G. Brown. On the Stability of Feature Selection
    Algorithms. JMLR 18(174):1-54, 2018.
    """
    if not isinstance(n_resamples, Integral) or isinstance(n_resamples, bool) or n_resamples < 2:
        raise ValueError(f"n_resamples must be an integer >= 2, got {n_resamples!r}.")
    if subsample is not None and not 0 < subsample < 1:
        raise ValueError(f"subsample must be a fraction in (0, 1) or None, got {subsample!r}.")
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32])
    rng = check_random_state(random_state)
    n = X.shape[0]
    Z = np.zeros((n_resamples, X.shape[1]), dtype=bool)
    has_seed = "random_state" in selector.get_params()
    for i in range(n_resamples):
        if subsample is None:
            rows = rng.randint(n, size=n)
        else:
            rows = np.sort(rng.choice(n, size=int(np.ceil(subsample * n)), replace=False))
        est = clone(selector)
        if has_seed:
            est.set_params(random_state=int(rng.randint(np.iinfo(np.int32).max)))
        Z[i] = est.fit(X[rows]).get_support()
    return stability_from_selections(Z, alpha=alpha)
