"""The method recommender: meta-features, nearest benchmark data sets, the verdict's gate."""

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


def _tests(p_agree, z, n_relevant, in_selection, k=4, d=20):
    from ufsel.model_selection._random_subset import RandomSubsetTest
    from ufsel.model_selection._relevance import FeatureRelevance, relevance_test

    test = RandomSubsetTest(statistic=0.5, null=np.zeros(100), null_mean=0.1, null_std=0.1,
                            z_score=z, p_value=p_agree, criterion="multiscale_agreement",
                            n_features=k)
    relevant = np.zeros(d, bool)
    relevant[:n_relevant] = True
    fr = FeatureRelevance(p_values=np.where(relevant, 0.0, 1.0), relevant=relevant,
                          alpha=0.01, n_splits=4, n_clusters=3, n_samples=200)
    cols = np.r_[np.arange(in_selection), np.arange(d - (k - in_selection), d)]
    return test, relevance_test(fr, cols)


def _rec(support, gain=0.05):
    from ufsel.model_selection import Recommendation

    return Recommendation("mcfs", {"mcfs": gain}, support, [])


@pytest.mark.parametrize("p_agree, z, n_rel, hits, rec, outcome", [
    # the relevance test passes: beats random, whatever the record
    (0.2, 0.5, 4, 4, None, "beats random"),
    (0.2, 0.5, 4, 4, _rec(0.0), "beats random"),
    # the agreement test alone: the record on the nearest data sets may back it
    (0.01, 3.0, 18, 4, _rec(1.0), "beats random"),
    (0.01, 3.0, 18, 4, _rec(0.4), "not shown"),
    (0.01, 3.0, 18, 4, _rec(1.0, gain=0.0), "not shown"),
    # no relevant feature in held-out rows: no shared structure
    (0.5, -0.2, 0, 0, _rec(1.0), "no better"),
    (0.01, 3.0, 0, 0, _rec(1.0), "not shown"),
    # at or below chance on both tests, with the power to see an effect: no better
    (0.6, -0.5, 8, 1, None, "no better"),
    # a failure to reject without that power is not evidence of no effect
    (0.3, 0.4, 8, 2, None, "not shown"),
])
def test_verdict_gate(p_agree, z, n_rel, hits, rec, outcome):
    """The gate: the data's own relevance test decides; the recommender's record may
    raise confidence in a passing agreement test, never veto a passing relevance test;
    "no better" needs evidence of no effect."""
    from ufsel.model_selection import VerdictGate

    test, rel = _tests(p_agree, z, n_rel, hits)
    got, reason = VerdictGate().decide(test, rel, rec)
    assert got == outcome
    assert (reason is None) is (outcome == "beats random")


def test_auto_selector_takes_a_recommender_object():
    """Leave-one-data-set-out needs no file: AutoSelector(recommender=MethodRecommender(...))."""
    X, _, _ = make_planted_clusters(n_samples=300, n_informative=4, n_noise=16, random_state=0)
    here = meta_features(X, random_state=0)
    rows = [_row(f"s{i}", "S", [here[f] + 0.01 * i for f in META_FEATURES],
                 {"maxvariance": 0.9, "laplacianscore": 0.85}) for i in range(6)]
    rec = MethodRecommender(table=rows)
    sel = AutoSelector(recommender=rec, n_resamples=0).fit(X)
    assert sel.recommendation_.method == "maxvariance"
    assert sel.record()["recommendation"]["method"] == "maxvariance"
    assert sel.record()["choice"]["strategy"] == "shortlist"
    # data identical to the pool get the full prior, data far from it little
    far = {f: v + 100.0 for f, v in here.items()}
    assert rec.similarity(far) < 0.05 and 10 * rec.similarity(far) < rec.similarity(here) <= 1
