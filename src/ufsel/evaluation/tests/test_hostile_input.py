"""Metrics and the evaluation protocol on hostile input: clear ValueErrors, no silent garbage."""

import numpy as np
import pytest

from ufsel.evaluation import evaluate_clustering, evaluate_selection
from ufsel.metrics import clustering_accuracy, nn_loo_error, normalized_mutual_info

X = np.random.RandomState(0).standard_normal((20, 4))
y = np.arange(20) % 2


@pytest.mark.parametrize("metric", [clustering_accuracy, normalized_mutual_info])
def test_label_metrics_refuse_bad_labels(metric):
    with pytest.raises(ValueError, match="NaN"):
        metric([1.0, np.nan, 2.0], [1, 2, 2])  # NaN != NaN would count as an error
    with pytest.raises(ValueError, match="inconsistent"):
        metric([1, 2], [1, 2, 2])
    with pytest.raises(ValueError, match="empty"):
        metric([], [])
    with pytest.raises(ValueError, match="1d"):
        metric(np.ones((3, 2)), [1, 2, 2])


def test_nn_loo_error_refuses_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        nn_loo_error(X, np.r_[np.nan, np.zeros(19)])
    with pytest.raises(ValueError, match="NaN"):
        nn_loo_error(np.where(X > 1, np.nan, X), y)
    with pytest.raises(ValueError, match="minimum of 2"):
        nn_loo_error(X[:1], y[:1])
    assert nn_loo_error(np.ones((5, 2)), [0, 0, 1, 1, 1]) == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("selected", "match"),
    [([7], "outside"), ([-1], "outside"), ([], "empty"), ([1.0], "indices"),
     ([1, 1], "repeated"), (np.array([True, False]), "one entry per feature"),
     ([[0, 1]], "1-D")],
)
def test_evaluate_selection_validates_selected(selected, match):
    with pytest.raises(ValueError, match=match):
        evaluate_selection(X, y, selected, n_runs=1)


def test_evaluate_selection_accepts_mask_and_numpy_ints():
    a = evaluate_selection(X, y, np.array([True, False, True, False]), n_runs=2, loo=False)
    b = evaluate_selection(X, y, np.array([0, 2], dtype=np.int32), n_runs=2, loo=False)
    assert a["acc_mean"] == b["acc_mean"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"n_runs": True}, "n_runs"), ({"n_runs": 0}, "n_runs"), ({"n_runs": 2.0}, "n_runs"),
     ({"n_clusters": True}, "n_clusters"), ({"n_clusters": 2.0}, "n_clusters"),
     ({"n_clusters": 25}, "n_clusters"), ({"n_clusters": 0}, "n_clusters"),
     ({"report": "best"}, "report")],
)
def test_evaluate_clustering_validates_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        evaluate_clustering(X, y, **kwargs)


def test_evaluate_clustering_bad_data():
    with pytest.raises(ValueError, match="NaN"):
        evaluate_clustering(X, np.r_[np.nan, y[1:]], n_runs=1)
    with pytest.raises(ValueError, match="NaN"):
        evaluate_clustering(np.where(X > 1, np.nan, X), y, n_runs=1)
    for scale in (1e150, 1e-150):  # k-means is scale invariant: same partitions
        a = evaluate_clustering(X * scale, y, n_runs=2)
        b = evaluate_clustering(X, y, n_runs=2)
        np.testing.assert_allclose(a["acc_runs"], b["acc_runs"])
