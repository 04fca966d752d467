"""Helpers shared by the selector tests."""

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning


def hits(est, informative, k=5):
    """How many of the ``k`` best-ranked features are informative."""
    top = np.argsort(est.ranking_)[:k]
    return len(set(top) & set(informative))


def fit_quiet(est, X):
    """``est.fit(X)`` with ConvergenceWarning silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X)
