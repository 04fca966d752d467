"""1-nearest-neighbour leave-one-out classification error."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import pairwise_distances_chunked
from sklearn.utils import check_array
from sklearn.utils.validation import check_consistent_length

from ._clustering import check_labels

__all__ = ["nn_loo_error"]


def nn_loo_error(X, y):
    """Leave-one-out error of the 1-nearest-neighbour classifier.

    Each sample i is classified with the label of its nearest *other* sample
    (Euclidean distance), and the error is the fraction misclassified (MCFS
    Section 4.3, Table 7).

    Definition on ties and duplicates: "other" means another row index, not
    another position in space. An exact duplicate of x_i (distance 0) is a
    different training sample and is therefore a legitimate nearest
    neighbour (this is what leaving out only sample i means); x_i itself
    never is, however many duplicates it has. Among several neighbours at
    the same distance the one with the smallest row index wins. Cai's
    ``compute_loocv`` instead takes the second column of a sorted distance
    row and can pick x_i itself when it has duplicates.

    Memory is bounded: distances are computed in row blocks
    (:func:`sklearn.metrics.pairwise_distances_chunked`). They are squared
    distances (the nearest neighbour is the same, and the square root, one
    more pass over each block, could merge two distinct squared distances
    into one rounded distance).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)

    Returns
    -------
    error : float in [0, 1]
    """
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=np.float64, ensure_min_samples=2)
    y = check_labels(y)
    check_consistent_length(X, y)
    nearest = np.concatenate(list(pairwise_distances_chunked(
        X, reduce_func=_nearest_other, metric="euclidean", squared=True)))
    return float(np.mean(y[nearest] != y))


def _nearest_other(D, start):
    """Index of each row's nearest other sample (first index among ties)."""
    rows = np.arange(D.shape[0])
    D[rows, start + rows] = np.inf
    return np.argmin(D, axis=1)
