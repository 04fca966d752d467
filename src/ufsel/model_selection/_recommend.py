"""Which method to run: a recommender learned from benchmark results on other data sets."""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from ..linalg import constant_features
from ._criteria import _row_sample, standardized

__all__ = ["META_FEATURES", "MethodRecommender", "Recommendation", "meta_features",
           "read_training_table", "TRAINING_TABLE"]

#: The label-free description of a data set the recommender compares data sets by.
META_FEATURES = ("log_n", "log_d", "log_d_over_n", "density", "negative_fraction",
                 "log_scale_spread", "mean_abs_corr", "neighbour_corr", "effective_rank",
                 "discreteness", "log_n_clusters")

#: The shipped training table (one row per data set: its meta-features, each method's
#: grid-mean ACC and the random subsets'), written by
#: ``benchmarks/label_free/train_recommender.py``.
TRAINING_TABLE = "recommender_table.csv"

#: Meta-features are computed on at most this many rows and columns.
META_ROWS, META_COLUMNS = 1000, 400

#: Neighbours of the k-NN recommender.
N_NEIGHBORS = 5


def _spread(ranges):
    ranges = ranges[ranges > 0]
    if ranges.size < 2:
        return 1.0
    low, high = np.percentile(ranges, [10, 90])
    return float(high / low)


def meta_features(X, *, random_state=0, max_samples=META_ROWS, max_features=META_COLUMNS):
    """Cheap label-free meta-features of a data set, on a sample of its rows and columns.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data as given (not standardised).
    random_state : int, RandomState or None, default=0
        Seeds the row and column samples.
    max_samples : int, default=1000
        Rows of the sample.
    max_features : int, default=400
        Columns of the sample for the correlations, the effective rank and K
        (the first ``max_features`` in the data's order when there are more, so
        that neighbouring columns stay neighbours).

    Returns
    -------
    features : dict
        ``log_n``, ``log_d``, ``log_d_over_n``; ``density`` (fraction of
        non-zero entries) and ``negative_fraction``; ``log_scale_spread`` (the
        90th over the 10th percentile of the columns' ranges); ``mean_abs_corr``
        (mean absolute correlation of two columns) and ``neighbour_corr`` (of
        adjacent columns: near 1 on series, spectra and pixels);
        ``effective_rank`` (exp of the entropy of the normalised squared
        singular values of the standardised sample, over its size);
        ``discreteness`` (fraction of columns with at most 10 distinct values)
        and ``log_n_clusters`` (the eigengap estimate of K on the sample).
    """
    from ._n_clusters import estimate_n_clusters

    rng = check_random_state(random_state)
    n, d = X.shape
    if sparse.issparse(X):
        density = X.nnz / float(n * d) if n * d else 0.0
    else:
        density = float(np.count_nonzero(np.asarray(X))) / float(n * d)
    Xr = _row_sample(X, max_samples, rng)
    negative = float(np.mean(Xr < 0))
    spread = _spread(np.ptp(Xr, axis=0))
    Xc = Xr[:, :max_features] if d > max_features else Xr
    const = np.asarray(constant_features(Xc), dtype=bool)
    Z = standardized(Xc)[:, ~const]
    m, dz = Z.shape
    if dz >= 2:
        C = (Z.T @ Z) / m
        off = np.abs(C[np.triu_indices(dz, 1)])
        mean_abs_corr = float(off.mean())
        neighbour = float(np.mean(np.abs(np.diag(C, 1))))
        s = np.linalg.svd(Z, compute_uv=False) ** 2
        p = s[s > 0] / s.sum()
        eff = float(np.exp(-(p * np.log(p)).sum()) / min(m, dz))
    else:
        mean_abs_corr = neighbour = 0.0
        eff = 1.0
    distinct = [np.unique(Xc[:, j]).size for j in range(Xc.shape[1])]
    discreteness = float(np.mean(np.asarray(distinct) <= 10))
    try:
        K = estimate_n_clusters(Z if dz else Xc, random_state=rng.randint(2**31 - 1),
                                max_clusters=max(2, min(50, m // 10)))
    except ValueError:
        K = 2
    return {"log_n": math.log(n), "log_d": math.log(d), "log_d_over_n": math.log(d / n),
            "density": density, "negative_fraction": negative,
            "log_scale_spread": math.log(spread), "mean_abs_corr": mean_abs_corr,
            "neighbour_corr": neighbour, "effective_rank": eff,
            "discreteness": discreteness, "log_n_clusters": math.log(K)}


def read_training_table(path=None):
    """The recommender's training rows: data set, source, meta-features, ACC per method.

    Parameters
    ----------
    path : str or path-like, default=None
        A table written by ``benchmarks/label_free/train_recommender.py``; None
        reads the one shipped with ufsel.

    Returns
    -------
    rows : list of dict
        ``dataset`` and ``source`` (str), each of :data:`META_FEATURES`
        (float), ``random`` (the random subsets' ACC) and ``acc`` (dict: method
        -> ACC, methods without a result left out).
    """
    if path is None:
        text = resources.files("ufsel.model_selection").joinpath(TRAINING_TABLE).read_text()
    else:
        text = Path(path).read_text()
    rows = []
    for r in csv.DictReader(text.splitlines()):
        acc = {key[4:]: float(v) for key, v in r.items() if key.startswith("acc_") and v}
        rows.append({"dataset": r["dataset"], "source": r["source"],
                     **{f: float(r[f]) for f in META_FEATURES},
                     "random": float(r["random_acc"]), "acc": acc})
    return rows


@dataclass(frozen=True)
class Recommendation:
    """What the recommender predicts for a data set, and why.

    Parameters
    ----------
    method : str
        The recommended method (registry name).
    predicted_gain : dict
        Each candidate's predicted ACC gain over random subsets (the
        distance-weighted mean over the nearest data sets).
    support : float
        The weighted fraction of the nearest data sets on which the
        recommended method beat random subsets (0 to 1): the recommender's
        confidence.
    neighbours : list of dict
        The nearest data sets: ``dataset``, ``source``, ``distance``, the
        recommended method's ``gain`` there and that data set's ``best``
        method.
    """

    method: str
    predicted_gain: dict
    support: float
    neighbours: list = field(default_factory=list)

    def to_dict(self):
        """The recommendation as plain values."""
        return {"method": self.method, "predicted_gain": dict(self.predicted_gain),
                "support": self.support, "neighbours": [dict(nb) for nb in self.neighbours]}

    def summary(self):
        """One sentence: the recommended method, its predicted gain and support, and the
        nearest data sets with the method's gain there.

        Returns
        -------
        str
            The sentence that ``select_features`` and the command line print.
        """
        near = "; ".join(
            f"{nb['dataset']} ({nb['source']}): {self.method} {100 * nb['gain']:+.1f} ACC "
            f"points over random, best {nb['best']}" for nb in self.neighbours)
        return (f"Recommended {self.method} (predicted {100 * self.predicted_gain[self.method]:+.1f}"
                f" ACC points over random subsets; it beat them on {100 * self.support:.0f} % of"
                f" the nearest benchmark data sets by weight). Nearest: {near}.")


class MethodRecommender:
    """Nearest benchmark data sets by meta-features, and the method that did best on them.

    Parameters
    ----------
    methods : sequence of str, default=None
        Candidate methods (registry names); None means every method of the
        training table.
    n_neighbors : int, default=5
        Nearest data sets.
    table : list of dict, default=None
        Training rows (:func:`read_training_table`); None reads the shipped
        table.
    exclude : sequence of str, default=()
        Training data sets to leave out (leave-one-data-set-out evaluation).

    Notes
    -----
    Each meta-feature is standardised over the training data sets; the
    distance is Euclidean, the weights ``1 / (distance + 0.1)``. A method's
    predicted gain is the weighted mean of ``ACC(method) - ACC(random)`` over
    the neighbours that have a result for it (FSEVAL's grid, k-means with K =
    the number of classes; the labels of the training data sets only). See
    :ref:`the guide <label-free>`.
    """

    def __init__(self, methods=None, *, n_neighbors=N_NEIGHBORS, table=None, exclude=()):
        rows = read_training_table() if table is None else table
        rows = [r for r in rows if r["dataset"] not in set(exclude)]
        if len(rows) < 2:
            raise ValueError("MethodRecommender needs at least two training data sets.")
        self.rows = rows
        all_methods = sorted({m for r in rows for m in r["acc"]})
        self.methods = list(all_methods if methods is None else methods)
        self.n_neighbors = int(n_neighbors)
        F = np.array([[r[f] for f in META_FEATURES] for r in rows])
        self.mean_ = F.mean(axis=0)
        self.scale_ = np.where(F.std(axis=0) > 0, F.std(axis=0), 1.0)
        self.F_ = (F - self.mean_) / self.scale_
        D = np.sqrt(((self.F_[:, None, :] - self.F_[None, :, :]) ** 2).sum(axis=2))
        np.fill_diagonal(D, np.inf)
        self.typical_distance_ = float(max(np.median(D.min(axis=1)), 1e-12))

    def neighbours(self, features):
        """Indices of the nearest training rows and their distances.

        Parameters
        ----------
        features : dict
            The data set's meta-features (:func:`meta_features`), one value per name of
            :data:`META_FEATURES`.

        Returns
        -------
        indices : ndarray of int
            The ``n_neighbors`` nearest training rows, nearest first (ties by row order).
        distances : ndarray
            Their distances in the standardised meta-feature space.
        """
        f = (np.array([features[k] for k in META_FEATURES]) - self.mean_) / self.scale_
        dist = np.sqrt(((self.F_ - f) ** 2).sum(axis=1))
        order = np.lexsort((np.arange(dist.size), dist))[: self.n_neighbors]
        return order, dist[order]

    def similarity(self, features):
        """How alike the data set is to the training data sets, from 0 to 1.

        ``1 / (1 + r)``, r the mean distance to the ``n_neighbors`` nearest
        training data sets over the typical one: the median, over the training
        data sets, of the distance to their nearest other one. Near 1 for data
        like those of the pool; towards 0 for data unlike any of them.

        Parameters
        ----------
        features : dict
            :func:`meta_features` of the data set.

        Returns
        -------
        similarity : float
        """
        _, dist = self.neighbours(features)
        return float(1.0 / (1.0 + dist.mean() / self.typical_distance_))

    def recommend(self, features, methods=None):
        """The recommended method for a data set with these meta-features.

        Parameters
        ----------
        features : dict
            :func:`meta_features` of the data set.
        methods : sequence of str, default=None
            Restrict the candidates (None: the recommender's ``methods``).

        Returns
        -------
        recommendation : Recommendation
        """
        cands = [m for m in (self.methods if methods is None else methods)]
        idx, dist = self.neighbours(features)
        w = 1.0 / (dist + 0.1)
        gains, support = {}, {}
        for m in cands:
            have = [(wi, self.rows[i]["acc"][m] - self.rows[i]["random"])
                    for wi, i in zip(w, idx) if m in self.rows[i]["acc"]]
            if not have:
                continue
            ww = np.array([h[0] for h in have])
            g = np.array([h[1] for h in have])
            gains[m] = float(ww @ g / ww.sum())
            support[m] = round(float(ww @ (g > 0) / ww.sum()), 9)  # 1.0 when all beat
        if not gains:
            raise ValueError("no candidate method has a result on the nearest data sets.")
        best = max(sorted(gains), key=lambda m: gains[m])
        near = []
        for i, di in zip(idx, dist):
            r = self.rows[i]
            if best in r["acc"]:
                near.append({"dataset": r["dataset"], "source": r["source"],
                             "distance": float(di), "gain": r["acc"][best] - r["random"],
                             "best": max(sorted(r["acc"]), key=r["acc"].get)})
        return Recommendation(best, gains, support[best], near)
