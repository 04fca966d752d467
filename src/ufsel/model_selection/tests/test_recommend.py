"""The method recommender: meta-features, nearest benchmark data sets, the verdict's gate."""

import csv
import math

import numpy as np
import pytest
from scipy import sparse

from ufsel.datasets import make_planted_clusters
from ufsel.model_selection import (
    META_FEATURES,
    AutoSelector,
    MethodRecommender,
    meta_features,
    read_training_table,
)


def _row(name, source, point, accs, random=0.5):
    feats = dict(zip(META_FEATURES, point))
    return {"dataset": name, "source": source, **feats, "random": random, "acc": accs}


def test_meta_features_describe_series_and_noise():
    rng = np.random.RandomState(0)
    noise = rng.randn(300, 40)
    series = np.cumsum(rng.randn(300, 40), axis=1)  # neighbouring columns nearly copies
    fn, fs = meta_features(noise), meta_features(series)
    assert set(fn) == set(META_FEATURES) and all(math.isfinite(v) for v in fn.values())
    assert fs["neighbour_corr"] > 0.8 > 0.2 > fn["neighbour_corr"]
    assert fs["effective_rank"] < fn["effective_rank"]
    assert fn["log_n"] == pytest.approx(math.log(300)) and fn["density"] == 1.0
    assert 0.4 < fn["negative_fraction"] < 0.6 and fn["discreteness"] == 0.0
    counts = rng.poisson(0.3, size=(200, 30)).astype(float)
    fc = meta_features(sparse.csr_matrix(counts))
    assert fc["discreteness"] == 1.0 and fc["density"] < 0.4 and fc["negative_fraction"] == 0
    assert meta_features(noise) == fn  # seeded: the same answer every time


def test_recommender_follows_the_nearest_data_sets():
    a, b = np.zeros(len(META_FEATURES)), np.ones(len(META_FEATURES))
    table = ([_row(f"a{i}", "A", a + 0.01 * i, {"spec": 0.8, "mcfs": 0.4}) for i in range(4)]
             + [_row(f"b{i}", "B", b + 0.01 * i, {"spec": 0.4, "mcfs": 0.7}) for i in range(4)])
    rec = MethodRecommender(table=table, n_neighbors=3)
    near_a = rec.recommend(dict(zip(META_FEATURES, a + 0.005)))
    assert near_a.method == "spec" and near_a.support == 1.0
    assert near_a.predicted_gain["spec"] == pytest.approx(0.3)
    assert near_a.predicted_gain["mcfs"] == pytest.approx(-0.1)
    assert [nb["dataset"] for nb in near_a.neighbours] == ["a0", "a1", "a2"]
    assert all(nb["best"] == "spec" for nb in near_a.neighbours)
    assert "a0 (A)" in near_a.summary() and "Recommended spec" in near_a.summary()
    near_b = rec.recommend(dict(zip(META_FEATURES, b)))
    assert near_b.method == "mcfs"
    # restricted candidates, and a left-out data set is never a neighbour
    assert rec.recommend(dict(zip(META_FEATURES, b)), ["spec"]).method == "spec"
    left = MethodRecommender(table=table, n_neighbors=3, exclude=["b0"])
    assert "b0" not in [nb["dataset"] for nb in left.recommend(dict(zip(META_FEATURES, b))).neighbours]
    with pytest.raises(ValueError, match="at least two"):
        MethodRecommender(table=table[:1])


def test_shipped_table_is_the_pool():
    rows = read_training_table()
    sources = {}
    for r in rows:
        sources[r["source"]] = sources.get(r["source"], 0) + 1
        assert all(math.isfinite(r[f]) for f in META_FEATURES)
        assert r["acc"] and all(0 <= v <= 1 for v in r["acc"].values())
    assert len({r["dataset"] for r in rows}) == len(rows)
    assert sources.get("mat") == 31 and sources.get("sklearn") == 3
    assert sources.get("KEEL") == 20 and sources.get("UCR") == 2


def _write(rows, path):
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["dataset", "source", *META_FEATURES, "random_acc",
                                           "acc_maxvariance", "acc_laplacianscore"])
        w.writeheader()
        for r in rows:
            w.writerow({"dataset": r["dataset"], "source": r["source"],
                        **{f: r[f] for f in META_FEATURES}, "random_acc": r["random"],
                        **{f"acc_{m}": v for m, v in r["acc"].items()}})


@pytest.mark.parametrize("record, outcome", [(0.9, "beats random"), (0.3, "cannot tell")])
def test_verdict_trusts_the_test_only_with_a_good_record(tmp_path, record, outcome):
    """The same passing held-out test gives "beats random" where the recommended method beat
    random subsets on the nearest benchmark data sets, "cannot tell" where it did not."""
    X, _, _ = make_planted_clusters(n_samples=300, n_informative=4, n_noise=16, random_state=0)
    here = meta_features(X, random_state=0)
    rows = [_row(f"s{i}", "S", [here[f] + 0.01 * i for f in META_FEATURES],
                 {"maxvariance": record, "laplacianscore": record - 0.05}) for i in range(6)]
    _write(rows, tmp_path / "table.csv")
    sel = AutoSelector(n_features_to_select=4, recommender_table=tmp_path / "table.csv",
                       n_resamples=0).fit(X)
    assert sel.method_ == "maxvariance" and sel.recommendation_.method == "maxvariance"
    v = sel.verdict_
    assert v.p_value <= v.alpha and v.z_score > 0  # the held-out test passes in both cases
    assert v.outcome == outcome and v.beats_random is (outcome == "beats random")
    if outcome == "cannot tell":
        assert "beat random subsets on only 0 %" in v.cannot_tell and "cannot tell" in v.summary()
    d = v.to_dict()
    assert d["verdict_details"]["outcome"] == outcome and d["beats_random"] is v.beats_random
    assert sel.record()["recommendation"]["method"] == "maxvariance"
