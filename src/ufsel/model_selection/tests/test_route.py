"""The route's steps and policies: the count's decision, the scorer, the gate's probability,
the candidates' seeds, the memory check, and messages that name only what the run used."""

import numpy as np
import pytest
from sklearn.utils._param_validation import InvalidParameterError

from ufsel.datasets import make_planted_clusters
from ufsel.model_selection import (
    AutoSelector,
    CountRule,
    Verdict,
    VerdictGate,
    assess_selection,
)
from ufsel.model_selection._route import CountDecision, HandRule, ScoredChoice
from ufsel.model_selection.tests.test_recommend import _rec, _tests


@pytest.fixture(scope="module")
def planted():
    return make_planted_clusters(200, 5, 45, 4, random_state=0)


@pytest.mark.parametrize("curve, n_rel, d, smallest, k, by", [
    (None, 5, 50, 1, 5, "relevant features"),        # few relevant: the curve not needed
    (8, 5, 50, 1, 5, "relevant features"),
    (7, 30, 50, 1, 7, "feature-count curve"),         # many relevant: the curve decides
    (7, 0, 50, 1, 7, "feature-count curve"),
    (1, 1, 13, 2, 2, "smallest testable count"),      # raised: the label says so
    (1, 40, 100, 2, 2, "smallest testable count"),
])
def test_count_rule_decides_and_says_what_decided(curve, n_rel, d, smallest, k, by):
    rule = CountRule()
    got = rule.choose(curve, n_rel, d, smallest)
    assert isinstance(got, CountDecision) and got.k == k and got.decided_by == by
    assert rule.needs_curve(n_rel, d) is (not 0 < n_rel <= 0.3 * d)
    if by == "smallest testable count":
        assert f"raised to {smallest}" in got.note
    if by == "relevant features":
        assert f"{n_rel} of the {d} features" in got.note
    with pytest.raises(ValueError, match="decided_by"):
        CountDecision(3, "the moon")


def test_curve_skipped_when_the_relevant_features_decide(planted):
    X, _, informative = planted
    sel = AutoSelector(n_resamples=0, verdict=False).fit(X)
    assert sel.description_.few_relevant
    assert sel.count_.decided_by == "relevant features" and sel.curve_ is None
    rec = sel.record()
    assert rec["n_features_curve"] is None
    assert rec["count"]["feature_count_curve"].startswith("not needed")
    assert rec["count"]["k"] == sel.n_features_to_select_ == sel.description_.n_relevant
    # the count's note and the description name the same relevant count
    assert f"{sel.description_.n_relevant} of the 50 features" in sel.count_note_


def test_policies_are_validated_constructor_parameters(planted):
    X = planted[0][:60, :12]
    for bad in ({"count_rule": "few"}, {"verdict_gate": 0.05}, {"scorer": object()}):
        with pytest.raises(InvalidParameterError):
            AutoSelector(**bad).fit(X)


class _Sure(HandRule):
    """The hand rule's choice with a probability, as a learned scorer gives one."""

    def __init__(self, p):
        self.p = p

    def choose(self, evidence, data, recommendation):
        c = super().choose(evidence, data, recommendation)
        return ScoredChoice(c.chosen, c.scores, self.p, {"training_sets": 3})

    def to_dict(self):
        return {"scorer": "sure", "p": self.p}


def test_scorer_probability_reaches_the_verdict_and_the_gate(planted):
    X = planted[0]
    kw = dict(n_resamples=0, methods=["laplacianscore", "pivotedqr"])
    sure = AutoSelector(scorer=_Sure(0.9), verdict_gate=VerdictGate(min_probability=0.8),
                        **kw).fit(X)
    assert sure.verdict_.outcome == "beats random" and sure.verdict_.probability == 0.9
    rec = sure.record()
    assert rec["choice"]["probability"] == 0.9 and rec["choice"]["scorer"]["scorer"] == "sure"
    assert rec["choice"]["basis"] == {"training_sets": 3}
    assert rec["verdict_details"]["probability"] == 0.9
    assert "probability 0.90" in sure.verdict_.summary()
    unsure = AutoSelector(scorer=_Sure(0.3), verdict_gate=VerdictGate(min_probability=0.8),
                          **kw).fit(X)
    assert unsure.verdict_.outcome == "not shown"
    assert "probability 0.30, below 0.80" in unsure.verdict_.reason
    # the same selection; no threshold, no condition
    assert unsure.method_ == sure.method_
    free = AutoSelector(scorer=_Sure(0.3), **kw).fit(X)
    assert free.verdict_.outcome == "beats random"
    with pytest.raises(ValueError, match="min_probability"):
        VerdictGate(min_probability=1.5)


def test_hand_rule_scores_every_candidate(planted):
    sel = AutoSelector(n_resamples=0, verdict=False).fit(planted[0])
    choice = sel.choice_
    assert choice.chosen.method == sel.method_ and choice.probability is None
    assert set(choice.scores) == {e.label for e in sel.evidence_}
    best = max((s, lab) for lab, s in choice.scores.items() if s is not None)[1]
    assert best == choice.chosen.label


@pytest.mark.parametrize("seed", [0, 7])
def test_candidates_are_seeded_from_random_state(planted, seed):
    X = planted[0][:120]
    sel = AutoSelector(methods=["mcfs"], choice="criterion", candidate_n_clusters="estimate",
                       n_features_to_select=5, verdict=False, random_state=seed).fit(X)
    assert sel.selector_.random_state == seed == sel.params_["random_state"]
    # a RandomState: a seed drawn from the candidates' own stream, the same each time
    seeds = {AutoSelector(methods=["mcfs"], choice="criterion",
                          candidate_n_clusters="estimate", n_features_to_select=5,
                          verdict=False, random_state=np.random.RandomState(3)).fit(X)
             .selector_.random_state for _ in range(2)}
    assert len(seeds) == 1


def test_memory_check_covers_the_candidates_fitted(planted, monkeypatch):
    from ufsel.model_selection import _auto

    checked = []
    real = _auto.check_fit_memory

    def spy(est, X):
        checked.append((type(est).__name__.lower(), est.get_params().get("n_clusters")))
        return real(est, X)

    monkeypatch.setattr(_auto, "check_fit_memory", spy)
    sel = AutoSelector(methods=["mcfs"], choice="criterion", candidate_n_clusters="estimate",
                       n_features_to_select=5, verdict=False).fit(planted[0])
    assert ("mcfs", sel.n_clusters_) in checked


def test_verdict_names_the_test_that_decided():
    test, rel = _tests(0.0758, 2.39, 4, 4)
    outcome, reason, by = VerdictGate().decide_with_test(test, rel)
    assert (outcome, by) == ("beats random", "relevance")
    v = Verdict(stability=None, test=test, outcome=outcome, alpha=0.05, method="M",
                n_features=4, relevance=rel, decided_by=by)
    assert f"decided by the relevance test, p = {rel.p_value:.3g}" in v.summary()
    assert v.decisive_p_value == rel.p_value and v.to_dict()["verdict_details"][
        "decisive_p_value"] == rel.p_value
    text = repr(v)
    assert "p_value=0.0758" in text and f"p_value={rel.p_value:.3g}" in text
    assert "decided_by='relevance'" in text
    # the agreement test backed by the record decides: its p-value is the one printed
    test, rel = _tests(0.01, 3.0, 18, 4)
    assert VerdictGate().decide_with_test(test, rel, _rec(1.0))[2] == "agreement"


@pytest.mark.parametrize("n_rel, k, d, says", [
    (13, 4, 13, "every one of the 13 features is relevant"),
    (18, 4, 20, "18 of the 20 features are relevant"),
])
def test_unpowered_relevance_test_says_why_without_contradiction(n_rel, k, d, says):
    test, rel = _tests(0.3, 0.4, n_rel, min(n_rel, k) - 1, k=k, d=d)
    outcome, reason = VerdictGate().decide(test, rel)
    assert outcome == "not shown" and says in reason
    assert "too few" not in reason


def test_recommended_method_is_one_the_route_fitted(planted):
    sel = AutoSelector(n_resamples=0, verdict=False).fit(planted[0])
    fitted = {e.method for e in sel.evidence_}
    assert sel.recommendation_.method in fitted


def test_assess_selection_records_a_probability(planted):
    X, _, informative = planted
    v = assess_selection(X, np.asarray(informative), probability=0.7)
    assert v.probability == 0.7 and v.to_dict()["verdict_details"]["probability"] == 0.7
