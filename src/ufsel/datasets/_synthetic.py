"""Synthetic data with known answers, for tests and examples."""

from __future__ import annotations

import numpy as np
from sklearn.utils import check_random_state

__all__ = ["make_three_gaussians", "make_planted_clusters"]


def make_three_gaussians(n_per_cluster=100, *, random_state=None):
    """The situation of MCFS's Figure 1: three Gaussian clusters in three features a, b, c.

    Feature ``a`` (largest variance) separates cluster 3 from clusters 1-2;
    feature ``b`` (second largest) separates it too, redundantly with ``a``;
    feature ``c`` (smallest variance) is the only one that separates cluster 1
    from cluster 2. A variance ranking is a > b > c and keeps (a, b), which
    cannot tell clusters 1 and 2 apart; only (a, c) separates all three.

    Parameters
    ----------
    n_per_cluster : int, default=100
        Samples per cluster.
    random_state : int, RandomState or None, default=None
        Seeds the data.

    Returns
    -------
    X : ndarray of shape (3 * n_per_cluster, 3)
        Columns a, b, c.
    y : ndarray of shape (3 * n_per_cluster,)
    """
    rng = check_random_state(random_state)
    centres = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 3.0], [10.0, 6.0, 0.0]])
    X = np.vstack([c + 0.4 * rng.standard_normal((n_per_cluster, 3)) for c in centres])
    y = np.repeat(np.arange(3), n_per_cluster)
    return X, y


def make_planted_clusters(n_samples=200, n_informative=5, n_noise=45, n_clusters=4, *,
                          separation=4.0, noise_scale=1.5, shuffle=True, random_state=None):
    """Clustered data whose cluster structure lives in a few planted features.

    The ``n_informative`` features hold ``n_clusters`` well separated Gaussian
    clusters (centres drawn with spread ``separation``, unit within-cluster
    noise); the ``n_noise`` others are independent Gaussian noise with
    standard deviation ``noise_scale`` (larger than the informative
    features' within-cluster spread, so variance alone is not a cue to
    informativeness unless the separation is large).

    Parameters
    ----------
    n_samples : int, default=200
        Number of samples.
    n_informative : int, default=5
        Number of planted features carrying the clusters.
    n_noise : int, default=45
        Number of pure-noise features.
    n_clusters : int, default=4
        Number of clusters.
    separation : float, default=4.0
        Spread of the cluster centres in the informative features.
    noise_scale : float, default=1.5
        Standard deviation of the noise features.
    shuffle : bool, default=True
        Shuffle the columns (otherwise the informative features come first).
    random_state : int, RandomState or None, default=None
        Seeds the data.

    Returns
    -------
    X : ndarray of shape (n_samples, n_informative + n_noise)
    y : ndarray of shape (n_samples,)
    informative : ndarray of shape (n_informative,)
        Column indices of the planted features.
    """
    rng = check_random_state(random_state)
    y = np.arange(n_samples) % n_clusters
    centres = separation * rng.standard_normal((n_clusters, n_informative))
    inf = centres[y] + rng.standard_normal((n_samples, n_informative))
    noise = noise_scale * rng.standard_normal((n_samples, n_noise))
    X = np.hstack([inf, noise])
    d = X.shape[1]
    perm = rng.permutation(d) if shuffle else np.arange(d)
    X = X[:, perm]
    informative = np.flatnonzero(perm < n_informative)
    return X, y, informative
