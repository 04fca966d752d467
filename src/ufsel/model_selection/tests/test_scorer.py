"""Tests of the learned scorer's reader: its table, its probabilities and its choice."""

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import pytest

from ufsel.model_selection import META_FEATURES, LearnedScorer, _route
from ufsel.model_selection._scorer import SCORER_FEATURES, candidate_features, read_scorer_table


@pytest.fixture(autouse=True)
def scored_choice(monkeypatch):
    """The route's ScoredChoice, or a stand-in with its fields where it is not there yet."""
    if not hasattr(_route, "ScoredChoice"):
        @dataclass(frozen=True)
        class ScoredChoice:
            chosen: object
            scores: dict
            probability: float = None
            basis: dict = None

        monkeypatch.setattr(_route, "ScoredChoice", ScoredChoice, raising=False)


META = {name: 0.5 for name in META_FEATURES}


def _evidence(method, *, prior, z, hits, usable=True):
    return SimpleNamespace(method=method, label=method, prior=prior, z_score=z,
                           relevant_hits=hits, usable=usable,
                           degenerate=None if usable else "every score is tied")


def _data(d=40, n_relevant=5, few=True, meta=META):
    return SimpleNamespace(Xw=np.zeros((10, d)),
                           meta_features=None if meta is None else dict(meta),
                           n_relevant=n_relevant, few_relevant=few, standardized=False)


def _recommendation(gains, support=0.8):
    return SimpleNamespace(predicted_gain=dict(gains), support=support)


def _table(**coef):
    """A table whose only weights are ``coef`` (by feature name), no scaling, identity Platt."""
    w = [float(coef.get(name, 0.0)) for name in SCORER_FEATURES]
    n = len(SCORER_FEATURES)
    return {"features": list(SCORER_FEATURES), "mean": [0.0] * n, "scale": [1.0] * n,
            "coef": w, "intercept": 0.0, "platt": [1.0, 0.0], "threshold": 0.9,
            "n_training_sets": 3, "training_sets": {"real": 3}}


def test_shipped_table_loads_and_matches_the_features():
    table = read_scorer_table()
    assert table["features"] == list(SCORER_FEATURES)
    assert len(table["coef"]) == len(table["mean"]) == len(table["scale"]) == len(SCORER_FEATURES)
    sc = LearnedScorer()
    assert sc.n_training_sets == table["n_training_sets"] > 0
    assert 0.0 <= sc.threshold <= 1.01


def test_probabilities_in_unit_interval_on_extreme_inputs():
    sc = LearnedScorer()
    rng = np.random.RandomState(0)
    F = rng.standard_normal((200, len(SCORER_FEATURES))) * 1e3
    p = sc.probability(F)
    assert p.shape == (200,)
    assert np.all((p >= 0) & (p <= 1))


def test_chooses_the_candidate_the_weights_favour():
    sc = LearnedScorer(_table(z=1.0))
    ev = [_evidence("a", prior=0.05, z=1.0, hits=1), _evidence("b", prior=0.0, z=3.0, hits=0),
          _evidence("c", prior=0.1, z=9.0, hits=5, usable=False)]
    choice = sc.choose(ev, _data(), _recommendation({"a": 0.05, "b": 0.0, "c": 0.1}))
    assert choice.chosen.method == "b"
    assert choice.scores["c"] is None
    assert choice.probability == pytest.approx(1 / (1 + np.exp(-3.0)))
    assert choice.scores["a"] == pytest.approx(1 / (1 + np.exp(-1.0)))
    assert choice.basis["n_training_sets"] == 3

    by_hits = LearnedScorer(_table(hits_frac=2.0)).choose(ev, _data(), None)
    assert by_hits.chosen.method == "a"  # the unusable one is never chosen


def test_shipped_scorer_prefers_a_candidate_better_on_every_input():
    strong = _evidence("strong", prior=0.1, z=4.0, hits=5)
    weak = _evidence("weak", prior=-0.05, z=-1.0, hits=0)
    sc = LearnedScorer()
    choice = sc.choose([weak, strong], _data(), _recommendation({"strong": 0.1, "weak": -0.05}))
    assert choice.chosen.method == "strong"
    assert choice.scores["strong"] > choice.scores["weak"]
    assert 0.0 <= choice.probability <= 1.0


def test_deterministic_and_independent_of_candidate_order():
    sc = LearnedScorer()
    ev = [_evidence(m, prior=p, z=z, hits=h) for m, p, z, h in
          (("x", 0.02, 1.5, 2), ("y", 0.04, 0.5, 3), ("z", -0.01, 2.5, 1))]
    rec = _recommendation({"x": 0.02, "y": 0.04, "z": -0.01})
    first = sc.choose(ev, _data(), rec)
    again = sc.choose(list(reversed(ev)), _data(), rec)
    assert first.chosen.method == again.chosen.method
    assert first.scores == again.scores
    assert first.probability == again.probability


def test_candidate_features_relative_inputs():
    F = candidate_features([{"prior": 0.1, "z_score": 2.0, "relevant_hits": 4},
                            {"prior": None, "z_score": None, "relevant_hits": None}],
                           meta=META, n_relevant=4, n_features=20, few_relevant=True,
                           standardized=False, support=0.5)
    col = {name: i for i, name in enumerate(SCORER_FEATURES)}
    assert F.shape == (2, len(SCORER_FEATURES))
    assert F[0, col["prior_rel"]] == 0.0 and F[1, col["prior_rel"]] == pytest.approx(-0.1)
    assert F[0, col["hits_frac"]] == 1.0 and F[1, col["hits_rel"]] == -1.0
    assert F[1, col["z"]] == 0.0 and F[0, col["relevant_frac"]] == pytest.approx(0.2)


def test_table_of_another_version_is_refused():
    table = _table()
    table["features"] = table["features"][:-1]
    with pytest.raises(ValueError, match="retrain"):
        LearnedScorer(table)


def test_without_meta_features_the_choice_stands_and_no_probability():
    ev = [_evidence("x", prior=0.02, z=1.5, hits=2), _evidence("y", prior=0.04, z=0.5, hits=3)]
    rec = _recommendation({"x": 0.02, "y": 0.04})
    sc = LearnedScorer()
    with_meta = sc.choose(ev, _data(), rec)
    without = sc.choose(ev, _data(meta=None), rec)
    assert without.chosen.method == with_meta.chosen.method
    assert without.probability is None and with_meta.probability is not None
