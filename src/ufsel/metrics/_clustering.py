"""Clustering accuracy (Hungarian matching) and NMI with the papers' normaliser."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix
from sklearn.utils.validation import check_consistent_length, column_or_1d

__all__ = ["check_labels", "clustering_accuracy", "normalized_mutual_info"]


def check_labels(y, name="y"):
    """A 1-D label array without NaN (NaN != NaN would silently count as a mismatch)."""
    y = column_or_1d(y)
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError(f"{name} contains NaN or infinite labels; remove those samples first.")
    return y


def _labels(y_true, y_pred):
    y_true = check_labels(y_true, "y_true")
    y_pred = check_labels(y_pred, "y_pred")
    check_consistent_length(y_true, y_pred)
    if y_true.size == 0:
        raise ValueError("clustering metrics need at least one sample, got empty label arrays.")
    return y_true, y_pred


def clustering_accuracy(y_true, y_pred):
    """Accuracy of a clustering under the best one-to-one cluster-to-class map.

    ``ACC = max_map (1/n) sum_i [y_true_i = map(y_pred_i)]`` over one-to-one
    maps from clusters to classes, found by the Hungarian (Kuhn-Munkres)
    algorithm on the contingency table (``scipy.optimize.linear_sum_assignment``).
    With more clusters than classes, the extra clusters map to no class and
    their samples count as errors (the square ``bestMap`` of Cai's code does
    the same).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        Labels of any hashable type; only their equality matters.

    Returns
    -------
    acc : float in [0, 1]
    """
    y_true, y_pred = _labels(y_true, y_pred)
    C = contingency_matrix(y_true, y_pred)
    rows, cols = linear_sum_assignment(C, maximize=True)
    return float(C[rows, cols].sum() / y_true.size)


def normalized_mutual_info(y_true, y_pred, average="max"):
    """Normalised mutual information, ``MI / max(H(C), H(C'))`` by default.

    The MCFS, LGDFS and SPCAFS papers normalise by the larger entropy
    (Cai's ``MutualInfo.m``); scikit-learn's default is the arithmetic mean.
    ``average`` accepts scikit-learn's options (``"min"``, ``"geometric"``,
    ``"arithmetic"``, ``"max"``); ``"sqrt"`` is an alias of ``"geometric"``
    (``MI / sqrt(H H')``, used by RNE and DGUFS).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Ground-truth classes.
    y_pred : array-like of shape (n_samples,)
        Cluster labels.
    average : {"max", "min", "geometric", "sqrt", "arithmetic"}, default="max"
        How the two entropies are combined in the denominator.
    """
    y_true, y_pred = _labels(y_true, y_pred)
    method = {"sqrt": "geometric"}.get(average, average)
    valid = {"min", "geometric", "arithmetic", "max", "sqrt"}
    if average not in valid:
        raise ValueError(f"average={average!r} not understood, valid options are {valid}.")
    return float(normalized_mutual_info_score(y_true, y_pred, average_method=method))
