"""k-means repeats with ACC / NMI, and sweeps over the number of selected features."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.cluster import KMeans
from sklearn.utils import check_array, check_random_state
from sklearn.utils.validation import check_consistent_length

from ..metrics import check_labels, clustering_accuracy, nn_loo_error, normalized_mutual_info

__all__ = ["evaluate_clustering", "evaluate_selection", "sweep_n_features"]

REPORTS = ("mean", "best_objective")


def evaluate_clustering(X, y, n_clusters=None, n_runs=20, report="mean", random_state=0, *,
                        init="random", max_iter=100, nmi_average="max"):
    """Run k-means ``n_runs`` times on X and score each run against ``y``.

    The protocol of the MCFS / RSFS / LGDFS / SPCAFS papers (REFERENCE_CODE.md
    section 6): k-means with one random start per run (``init="random"``
    picks random samples as centres, like ``litekmeans(..., 'Replicates', 1)``
    with its default 'sample' start; pass ``init="k-means++"`` for
    scikit-learn's), ``max_iter=100``, ACC under the Hungarian map, NMI
    normalised by ``max(H, H')``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Usually the data restricted to the selected features.
    y : array-like of shape (n_samples,)
        Ground-truth classes.
    n_clusters : int, optional
        Defaults to the number of classes in ``y``.
    n_runs : int, default=20
    report : {"mean", "best_objective"}
        ``"mean"`` (the default) reports mean and standard deviation over the
        runs. ``"best_objective"`` additionally reports the scores of the run
        with the lowest k-means objective (inertia), as MCFS does, under
        ``acc_best_objective`` / ``nmi_best_objective``.
    random_state : int, RandomState or None, default=0
        One generator for the whole evaluation; run r uses the r-th seed drawn
        from it, so results are reproducible.
    init, max_iter : passed to :class:`sklearn.cluster.KMeans`.
    nmi_average : str, default="max"
        See :func:`ufsel.metrics.normalized_mutual_info`.

    Returns
    -------
    result : dict
        ``acc_mean``, ``acc_std``, ``nmi_mean``, ``nmi_std``, the per-run
        arrays ``acc_runs``, ``nmi_runs``, ``inertia_runs``, the NMI normalised
        by the arithmetic mean (scikit-learn's default) whatever
        ``nmi_average`` is: ``nmi_arithmetic_mean``, ``_std``, ``_runs``, ``report``, and
        for ``report="best_objective"`` also ``acc_best_objective`` and
        ``nmi_best_objective``.
    """
    if report not in REPORTS:
        raise ValueError(f"report={report!r} not understood, valid options are {set(REPORTS)}.")
    if not (_is_int(n_runs) and n_runs >= 1):
        raise ValueError(f"n_runs must be a positive integer, got {n_runs!r}.")
    if y is None:
        raise ValueError("ACC and NMI compare a clustering with true labels, and y is None: "
                         "this data set has no labels to evaluate with.")
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32])
    y = check_labels(y)
    check_consistent_length(X, y)
    if n_clusters is None:
        n_clusters = np.unique(y).size
    if not _is_int(n_clusters):
        raise ValueError(f"n_clusters must be an integer, got {n_clusters!r}.")
    if not 1 <= n_clusters <= X.shape[0]:
        raise ValueError(
            f"n_clusters must be in [1, n_samples={X.shape[0]}], got {n_clusters}."
        )
    rng = check_random_state(random_state)
    seeds = rng.randint(np.iinfo(np.int32).max, size=n_runs)
    acc = np.empty(n_runs)
    nmi = np.empty(n_runs)
    inertia = np.empty(n_runs)
    nmi_ar = np.empty(n_runs)  # scikit-learn's default normalisation, beside the papers' one
    for r, seed in enumerate(seeds):
        km = KMeans(n_clusters=n_clusters, init=init, n_init=1, max_iter=max_iter,
                    random_state=int(seed)).fit(X)
        acc[r] = clustering_accuracy(y, km.labels_)
        nmi[r] = normalized_mutual_info(y, km.labels_, average=nmi_average)
        nmi_ar[r] = normalized_mutual_info(y, km.labels_, average="arithmetic")
        inertia[r] = km.inertia_
    out = {
        "acc_mean": float(acc.mean()),
        "acc_std": float(acc.std()),
        "nmi_mean": float(nmi.mean()),
        "nmi_std": float(nmi.std()),
        "acc_runs": acc,
        "nmi_runs": nmi,
        "nmi_arithmetic_mean": float(nmi_ar.mean()),
        "nmi_arithmetic_std": float(nmi_ar.std()),
        "nmi_arithmetic_runs": nmi_ar,
        "inertia_runs": inertia,
        "report": report,
    }
    if report == "best_objective":
        best = int(np.argmin(inertia))
        out["acc_best_objective"] = float(acc[best])
        out["nmi_best_objective"] = float(nmi[best])
        out["nmi_arithmetic_best_objective"] = float(nmi_ar[best])
    return out


def _is_int(v):
    return isinstance(v, (Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def check_selected(selected, n_features, *, name="selected"):
    """Column indices from ``selected``: distinct integers in [0, n_features), or a mask.

    Raises a ValueError for out-of-range, negative (which NumPy would
    silently count from the end), repeated, non-integer or empty selections;
    ``name`` is what the messages call the argument.
    """
    sel = np.asarray(selected)
    if sel.dtype == bool:
        if sel.shape != (n_features,):
            raise ValueError(
                f"a boolean {name} must have one entry per feature ({n_features}), got "
                f"shape {sel.shape}."
            )
        sel = np.flatnonzero(sel)
    elif sel.ndim != 1 or (sel.size and sel.dtype.kind not in "iu"):
        raise ValueError(
            f"{name} must be a 1-D array of feature indices or a boolean mask, got {selected!r}."
        )
    sel = sel.astype(np.intp)
    if sel.size == 0:
        raise ValueError(f"{name} is empty: select at least one feature.")
    if sel.min() < 0 or sel.max() >= n_features:
        raise ValueError(
            f"{name} holds indices outside [0, {n_features - 1}] (min {sel.min()}, max "
            f"{sel.max()}): give distinct column indices in that range."
        )
    if np.unique(sel).size != sel.size:
        raise ValueError(f"{name} holds repeated feature indices: give distinct column indices.")
    return sel


def evaluate_selection(X, y, selected, *, n_clusters=None, n_runs=20, report="mean",
                       random_state=0, loo=True, init="random"):
    """ACC/NMI (and optionally the 1-NN LOO error) on the columns ``selected`` of X.

    ``init`` is the k-means start of :func:`evaluate_clustering`: ``"random"``
    (the papers' protocol) or ``"k-means++"`` (FSEVAL's).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data, all features.
    y : array-like of shape (n_samples,)
        Ground-truth classes.
    selected : array-like of int or bool
        The selected columns (indices or a support mask).
    n_clusters : int or None, default=None
        Defaults to the number of classes in ``y``.
    n_runs : int, default=20
        Number of k-means runs.
    report : {"mean", "best_objective"}, default="mean"
        See :func:`evaluate_clustering`.
    random_state : int, RandomState or None, default=0
        Seeds the k-means runs.
    loo : bool, default=True
        Also report the 1-NN leave-one-out error
        (:func:`ufsel.metrics.nn_loo_error`).
    init : {"random", "k-means++"}, default="random"
        The k-means start, see above.
    """
    X = check_array(X, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32])
    Xs = X[:, check_selected(selected, X.shape[1])]
    out = evaluate_clustering(Xs, y, n_clusters=n_clusters, n_runs=n_runs, report=report,
                              random_state=random_state, init=init)
    if loo:
        out["nn_loo_error"] = nn_loo_error(Xs, y)
    return out


def sweep_n_features(selector, X, y, n_features_list, *, n_clusters=None, n_runs=20,
                     report="mean", random_state=0, loo=False):
    """Evaluate a selector at several numbers of selected features.

    The selector is fitted once (MCFS: one LARS path serves every count, see
    :meth:`ufsel.base.BaseSelector.fit_rankings`), and each count's selection
    is evaluated with :func:`evaluate_selection`.

    Parameters
    ----------
    selector : BaseSelector
        An unfitted selector; it is fitted once on X.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        The data, all features.
    y : array-like of shape (n_samples,)
        Ground-truth classes.
    n_features_list : sequence of int
        The numbers of selected features to evaluate.
    n_clusters : int or None, default=None
        Defaults to the number of classes in ``y``.
    n_runs : int, default=20
        Number of k-means runs.
    report : {"mean", "best_objective"}, default="mean"
        See :func:`evaluate_clustering`.
    random_state : int, RandomState or None, default=0
        Seeds the k-means runs.
    loo : bool, default=False
        Also report the 1-NN leave-one-out error.

    Returns
    -------
    rows : list of dict
        One dict per count with ``n_features`` and the evaluation results
        (per-run arrays dropped).
    """
    rankings = selector.fit_rankings(X, n_features_list)
    rows = []
    for k, ranking in rankings.items():
        selected = np.argsort(ranking, kind="stable")[:k]
        res = evaluate_selection(X, y, selected, n_clusters=n_clusters, n_runs=n_runs,
                                 report=report, random_state=random_state, loo=loo)
        rows.append({"n_features": k, **{key: v for key, v in res.items()
                                         if not key.endswith("_runs")}})
    return rows
