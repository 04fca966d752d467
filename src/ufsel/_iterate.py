"""Bookkeeping shared by the iterative selectors: objective history, stopping, divergence."""

from __future__ import annotations

import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval

from .base import NumericalError, warn_not_converged

__all__ = [
    "CLUSTER_GRAPH_CONSTRAINTS",
    "ITERATIVE_CONSTRAINTS",
    "ObjectiveTracker",
    "PerCountRankingsMixin",
    "relative_change",
    "report_iteration",
    "safeguarded_multiplicative",
    "warn_steps_not_converged",
]


def relative_change(prev, value):
    """``|prev - value| / max(|prev|, tiny)``: the stopping quantity of every iterative selector."""
    return abs(prev - value) / max(abs(prev), np.finfo(float).tiny)


def report_iteration(owner, iteration, value, change, start, verbose):
    """Print one progress line when ``verbose > 0``: the iterative selectors' ``verbose`` output.

    ``owner: iteration <t>  objective <f_t>  relative change <|f_{t-1} - f_t| / |f_{t-1}|>
    elapsed <seconds since start> s`` on standard output (flushed, so that it
    shows in logs of long runs); ``start`` is a ``time.perf_counter()``
    value. The relative change of the first iteration is printed as ``-``.
    """
    if not verbose or verbose <= 0:
        return
    rel = "-" if not np.isfinite(change) else f"{change:.3e}"
    print(f"{owner}: iteration {iteration:4d}  objective {value:.10g}  relative change {rel:>9}"
          f"  elapsed {time.perf_counter() - start:.2f} s", flush=True)


class ObjectiveTracker:
    """Records one objective value per iteration and decides when to stop: the one
    iteration bookkeeping of the iterative selectors.

    ``append(value)`` returns True when the relative change
    ``|f_{t-1} - f_t| / max(|f_{t-1}|, tiny)`` (``last_change``, inf after the
    first value) falls below ``tol`` (never when ``tol`` is None); it raises
    :class:`~ufsel.base.NumericalError` when the value is NaN or infinite,
    naming ``owner`` and ending with ``advice`` (default: "Standardise the
    features or change <hint>."). ``finish()`` emits the shared
    ConvergenceWarning when ``max_iter`` was reached without converging and
    returns the history as an array. A selector with its own stopping rule
    (residuals, a stable subset) reads ``last_change`` and warns itself.
    ``values`` is the history, a list that grows in place. With ``verbose >
    0`` every ``append`` prints one line (:func:`report_iteration`; elapsed
    time counted from the tracker's creation, just before the selector's loop).
    """

    def __init__(self, owner, max_iter, tol, hint="a regularisation parameter", *, verbose=0,
                 advice=None):
        self.owner, self.max_iter, self.tol, self.hint = owner, max_iter, tol, hint
        self.advice = advice if advice is not None else (
            f"Standardise the features or change {hint}.")
        self.verbose = verbose
        self.start = time.perf_counter()
        self.values = []
        self.converged = False
        self.last_change = np.inf

    def append(self, value):
        value = float(value)
        if not np.isfinite(value):
            raise NumericalError(
                f"{self.owner}: the objective became {value} at iteration {len(self.values) + 1}. "
                f"{self.advice}"
            )
        if self.values:
            prev = self.values[-1]
            self.last_change = relative_change(prev, value)
            self.converged = self.tol is not None and self.last_change < self.tol
        self.values.append(value)
        report_iteration(self.owner, len(self.values), value,
                         self.last_change if len(self.values) > 1 else np.inf, self.start,
                         self.verbose)
        return self.converged

    @property
    def n_iter(self):
        return len(self.values)

    def finish(self):
        if not self.converged and self.max_iter > 1:
            warn_not_converged(self.owner, self.max_iter, self.last_change, self.tol)
        return np.asarray(self.values)


def safeguarded_multiplicative(F, ratio, objective, current, *, powers=(1.0, 0.5, 0.25, 0.125)):
    """Multiplicative step ``F * ratio**p`` with the largest ``p`` in ``powers`` that does not
    increase ``objective``.

    ``ratio`` is the (non-negative) ratio of the negative to the positive part
    of the gradient. ``p = 1`` is the classical rule (NDFS Eq. 12); smaller
    powers are the damped rules whose monotonicity follows from the usual
    auxiliary functions (``1/2`` for quadratic terms, Ding et al. 2010;
    ``1/4`` for the quartic orthogonality penalty). When none decreases the
    objective (a stationary point up to round-off) F is returned unchanged.

    Returns
    -------
    F_new : ndarray
    value : float
        ``objective(F_new)``.
    """
    for p in powers:
        F_new = F * ratio**p
        value = objective(F_new)
        if value <= current:
            return F_new, value
    return F, current


#: Parameter constraints shared by the iterative, cluster-count and graph-based selectors.
ITERATIVE_CONSTRAINTS = {
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "random_state": ["random_state"],
    "verbose": ["verbose"],
}
CLUSTER_GRAPH_CONSTRAINTS = {
    "n_clusters": [Interval(Integral, 1, None, closed="left")],
    "n_neighbors": [Interval(Integral, 1, None, closed="left")],
}


class PerCountRankingsMixin:
    """``fit_rankings`` for methods whose result depends on the number of features.

    One fit per requested count (DGUFS's subset, RNE's m columns); each
    count's ranking is that fit's ``ranking_`` (tie-breaks and constant
    features last included). The estimator itself (``BaseSelector.fit_rankings``
    passes a clone set to the largest count) is the fit for the largest count,
    so no count is fitted twice.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.selector_tags.scores_depend_on_count = True
        return tags

    def _fit_rankings(self, X, counts):
        rankings = {}
        *smaller, largest = counts
        for k in smaller:
            est = self.__class__(**{**self.get_params(), "n_features_to_select": k})
            est.fit(X)
            rankings[k] = est.ranking_.copy()
        self.set_params(n_features_to_select=largest).fit(X)
        rankings[largest] = self.ranking_.copy()
        return rankings


def warn_steps_not_converged(owner, steps, max_iter_name, max_iter, tol_name, tol, *,
                             attribute):
    """Emit the ConvergenceWarning of an inner solver that stopped short in some steps.

    ``steps`` names them (``"3 of 40 W-steps"``); ``max_iter_name`` / ``tol_name`` are the
    parameters that bound them and ``attribute`` the fitted attribute that says which.
    The companion of :func:`~ufsel.base.warn_not_converged`, for the outer iterations.
    """
    warnings.warn(
        f"{owner}: {steps} stopped at {max_iter_name}={max_iter} iterations (or could not "
        f"decrease further) before meeting {tol_name}={tol:g} (see {attribute}). "
        f"Increase {max_iter_name} or {tol_name}.",
        ConvergenceWarning,
        stacklevel=4,
    )
