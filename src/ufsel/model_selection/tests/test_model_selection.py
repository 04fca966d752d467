"""Tests of the label-free tools: cluster count, stability, random-subset test, count, AutoSelector."""

import itertools

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs

import ufsel
from ufsel import MCFS, LaplacianScore, MaxVariance
from ufsel.datasets import make_planted_clusters
from ufsel.model_selection import (
    DEFAULT_METHODS,
    AutoSelector,
    estimate_n_clusters,
    random_subset_test,
    select_features,
    selection_stability,
    stability_from_selections,
    suggest_n_features,
)
from ufsel.model_selection._criteria import agreement_scales
from ufsel.utils import get_selector_tags


# ------------------------------------------------------------ cluster count
@pytest.mark.parametrize("K", [3, 5, 8])
def test_estimate_n_clusters_exact_on_separated_blobs(K):
    X, _ = make_blobs(40 * K, centers=K, n_features=5, cluster_std=0.5,
                      center_box=(-30, 30), random_state=K)
    assert estimate_n_clusters(X, random_state=0) == K


def test_estimate_n_clusters_planted_clusters_within_components():
    # four planted clusters among 45 noise features: the 10-NN graph has two components
    # (two pairs of clusters), and the largest gap after them is after the fourth eigenvalue
    X, _, _ = make_planted_clusters(200, 5, 45, 4, random_state=0)
    k, det = estimate_n_clusters(X, random_state=0, return_details=True)
    assert np.count_nonzero(det.eigenvalues < 1e-8) == 2
    assert k == 4


def test_estimate_n_clusters_never_below_component_count():
    X, _ = make_blobs(300, centers=4, cluster_std=0.5, center_box=(-20, 20), random_state=0)
    k, det = estimate_n_clusters(X, random_state=0, return_details=True)
    assert np.count_nonzero(det.eigenvalues < 1e-8) == 4
    assert k >= 4  # (12 here: the documented failure on low-dimensional blobs)


def test_estimate_n_clusters_details_and_disconnected_graph():
    X, _ = make_blobs(200, centers=4, n_features=3, cluster_std=0.3, center_box=(-40, 40),
                      random_state=1)
    k, det = estimate_n_clusters(X, max_clusters=10, return_details=True, random_state=0)
    assert k == 4
    lam = det.eigenvalues
    assert lam.shape == (11,) and np.all(np.diff(lam) >= -1e-12)
    # four components: four zero eigenvalues of L_sym, then a gap
    np.testing.assert_allclose(lam[:4], 0.0, atol=1e-8)
    assert lam[4] > 1e-3
    assert det.gaps.shape == (9,)


def test_estimate_n_clusters_rejects_bad_input():
    with pytest.raises(ValueError, match="at least 4 samples"):
        estimate_n_clusters(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="max_clusters"):
        estimate_n_clusters(np.random.RandomState(0).rand(20, 2), max_clusters=1)


# ---------------------------------------------------------------- stability
def test_stability_identical_selections_is_one():
    Z = np.zeros((5, 10), dtype=bool)
    Z[:, [1, 4, 7]] = True
    s = stability_from_selections(Z)
    assert s.value == pytest.approx(1.0)
    assert s.variance == pytest.approx(0.0, abs=1e-15)
    assert s.ci_low == pytest.approx(1.0) and s.ci_high == pytest.approx(1.0)


def test_stability_hand_worked_three_selections():
    # d = 4, selections {0,1}, {0,2}, {0,1}: p = (1, 2/3, 1/3, 0), kbar = 2
    # Phi = 1 - (3/2 * mean(p(1-p))) / (1/2 * 1/2) = 1 - (3/2 * 1/9) / (1/4) = 1/3,
    # equal to the mean pairwise Kuncheva index (0 + 1 + 0) / 3.
    # Variance: pe = 1/2, pa_i = (5/6, 2/3, 5/6), pe_i = 1/3, g_i = (1, 2/3, 1),
    # var = 4/9 * ((1/9)^2 + (2/9)^2 + (1/9)^2) = 8/243.
    Z = np.array([[1, 1, 0, 0], [1, 0, 1, 0], [1, 1, 0, 0]])
    s = stability_from_selections(Z, alpha=0.05)
    assert s.value == pytest.approx(1 / 3)
    assert s.variance == pytest.approx(8 / 243)
    half = 1.959963984540054 * np.sqrt(8 / 243)
    assert s.ci_low == pytest.approx(1 / 3 - half) and s.ci_high == pytest.approx(1 / 3 + half)


def test_stability_independent_random_selections_about_zero():
    rng = np.random.RandomState(0)
    Z = np.zeros((200, 100), dtype=bool)
    for i in range(200):
        Z[i, rng.choice(100, 10, replace=False)] = True
    s = stability_from_selections(Z)
    assert abs(s.value) < 0.02
    assert s.ci_low < 0 < s.ci_high


def test_stability_rejects_degenerate_input():
    with pytest.raises(ValueError, match="at least 2 rows"):
        stability_from_selections(np.ones((1, 3)))
    with pytest.raises(ValueError, match="undefined"):
        stability_from_selections(np.ones((3, 3)))
    with pytest.raises(ValueError, match="binary"):
        stability_from_selections(np.full((3, 3), 2))


def test_selection_stability_of_a_selector():
    X, _, informative = make_planted_clusters(150, 5, 30, 3, separation=8.0, random_state=0)
    sel = MaxVariance(n_features_to_select=5)
    s = selection_stability(sel, X, n_resamples=10, random_state=0)
    assert s.selections.shape == (10, 35) and np.all(s.selections.sum(axis=1) == 5)
    assert s.value > 0.8  # high-variance planted features are chosen on every resample
    s2 = selection_stability(LaplacianScore(n_features_to_select=5), X, n_resamples=5,
                             subsample=0.8, random_state=0)
    assert -1 <= s2.ci_low <= s2.value <= s2.ci_high


# ------------------------------------------------------- random-subset test
@pytest.mark.parametrize("criterion", [None, "cluster_agreement"])
def test_random_subset_test_finds_planted_features(criterion):
    X, _, informative = make_planted_clusters(300, 5, 45, 4, random_state=0)
    kw = {} if criterion is None else {"criterion": criterion}
    r = random_subset_test(X, informative, n_clusters=4, n_draws=100, random_state=0, **kw)
    if criterion is None:
        # the default: also K = 8 and 16, which split the planted (Gaussian) clusters
        # arbitrarily, on the subset and on all features alike
        assert r.criterion == "multiscale_agreement"
        assert r.statistic > 0.5
    else:
        assert r.statistic > 0.95  # k-means on the planted features finds the same clusters
    assert r.p_value == pytest.approx(1 / 101)  # better than every random subset
    assert r.z_score > 3
    assert r.n_features == 5 and r.null.shape == (100,)
    assert r.p_value == (1 + np.sum(r.null >= r.statistic)) / 101


@pytest.mark.parametrize("criterion", ["multiscale_agreement", "knn_preservation",
                                       "reconstruction"])
def test_other_criteria_rank_planted_features_above_random(criterion):
    X, _, informative = make_planted_clusters(300, 5, 45, 4, separation=8.0, random_state=0)
    r = random_subset_test(X, informative, criterion=criterion, n_draws=100, random_state=0)
    assert r.z_score > 1 and r.statistic > r.null_mean


def test_random_subset_test_does_not_flag_random_supports():
    X, _, _ = make_planted_clusters(200, 5, 45, 4, separation=8.0, random_state=0)
    rng = np.random.RandomState(3)
    pvals = np.array([random_subset_test(X, rng.choice(50, 5, replace=False), n_draws=50,
                                         random_state=s).p_value for s in range(20)])
    # under the null the p-value is roughly uniform: few small values, a spread-out median
    assert np.mean(pvals < 0.05) <= 0.15
    assert 0.2 < np.median(pvals) < 0.8


def test_random_subset_test_is_exact_over_every_subset_when_there_are_few():
    """C(5, 2) = 10 <= n_draws: every pair is evaluated and p is the exact rank / 10."""
    rng = np.random.RandomState(0)
    X = rng.standard_normal((1000, 5)) * np.array([5.0, 2.0, 1.0, 0.5, 0.2])
    Xc = X - X.mean(axis=0)

    def explained(cols):  # fraction of the variance explained by least squares on cols
        B = np.linalg.lstsq(Xc[:, cols], Xc, rcond=None)[0]
        return 1.0 - np.sum((Xc - Xc[:, cols] @ B) ** 2) / np.sum(Xc ** 2)

    every = np.array([explained(list(c)) for c in itertools.combinations(range(5), 2)])
    for support in ([0, 1], [2, 4], [3, 4]):
        r = random_subset_test(X, support, criterion="reconstruction", n_draws=100,
                               random_state=0)
        assert r.exact and r.null.size == 10 and r.min_p_value == pytest.approx(0.1)
        np.testing.assert_allclose(np.sort(r.null), np.sort(every), rtol=1e-10)
        rank = np.count_nonzero(every >= explained(support) - 1e-12)
        assert r.p_value == pytest.approx(rank / 10)
    # the two columns of largest variance are the best pair, the two smallest the worst
    assert random_subset_test(X, [0, 1], criterion="reconstruction").p_value == pytest.approx(0.1)
    assert random_subset_test(X, [3, 4], criterion="reconstruction").p_value == pytest.approx(1.0)
    # more subsets than draws: sampled, with the Monte Carlo p-value's floor
    r = random_subset_test(X, [0, 1], criterion="reconstruction", n_draws=5, random_state=0)
    assert not r.exact and r.null.size == 5 and r.min_p_value == pytest.approx(1 / 6)


def test_verdict_says_when_no_subset_of_the_size_could_beat_random():
    """One of 6 features: p >= 1/6 > 0.05 for any choice; the verdict says it cannot tell."""
    rng = np.random.RandomState(0)
    y = np.repeat([0, 1, 2], 40)
    X = rng.standard_normal((120, 6))
    X[:, 2] += 6.0 * y  # one strongly clustered feature among noise
    sel = select_features(X, n_clusters=3, n_features_to_select=1, n_resamples=0,
                          random_state=0)
    v = sel.verdict_
    assert v.test.exact and v.test.null.size == 6 and not v.testable and not v.beats_random
    assert "Not shown" in v.summary() and "NO better" not in v.summary()
    assert f"ranks {round(v.p_value * 6)} of 6" in v.summary()
    # the same data with two features: 15 pairs, still too few for alpha = 0.05; with
    # alpha = 0.1 the best pair can reach p = 1/15
    v2 = select_features(X, n_clusters=3, n_features_to_select=2, n_resamples=0, alpha=0.1,
                         random_state=0).verdict_
    assert v2.test.null.size == 15 and v2.testable


def test_cluster_agreement_is_quiet_on_subsets_with_few_distinct_points():
    import warnings

    # two binary columns have at most 4 distinct points, fewer than K = 6 clusters
    X, _, _ = make_planted_clusters(120, 3, 10, 6, random_state=0)
    X[:, :2] = (X[:, :2] > 0).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = random_subset_test(X, [0, 1], n_clusters=6, n_draws=5, random_state=0)
    assert r.statistic < 1.0


def test_random_subset_test_mask_equals_indices_and_validates():
    X, _, informative = make_planted_clusters(100, 3, 10, 3, random_state=0)
    mask = np.zeros(13, dtype=bool)
    mask[informative] = True
    a = random_subset_test(X, mask, n_draws=10, random_state=0)
    b = random_subset_test(X, informative[::-1], n_draws=10, random_state=0)
    assert a.statistic == b.statistic and np.array_equal(a.null, b.null)
    with pytest.raises(ValueError, match="distinct column indices"):
        random_subset_test(X, [0, 0, 1], n_draws=10)
    with pytest.raises(ValueError, match="criterion"):
        random_subset_test(X, [0, 1], criterion="nope", n_draws=10)
    for bad in (1, 0, 2.5, True):
        with pytest.raises(ValueError, match="n_clusters must be an integer >= 2"):
            random_subset_test(X, [0, 1], n_clusters=bad, n_draws=10)
        with pytest.raises(ValueError, match="n_clusters must be an integer >= 2"):
            suggest_n_features(X, np.arange(1, 14), n_clusters=bad)


def test_agreement_scales_hand_values():
    from ufsel.model_selection._criteria import agreement_scales

    assert agreement_scales(2, 400) == (2, 4, 8, 16)  # doubling up to sqrt(400) = 20
    assert agreement_scales(4, 1000) == (4, 8, 16)  # 32 > int(sqrt(1000)) = 31
    assert agreement_scales(49, 1000) == (49,)  # K above sqrt(n): K alone
    assert agreement_scales(7, 5) == (4,)  # capped at n - 1


def test_multiscale_agreement_is_the_mean_over_its_scales():
    from ufsel.model_selection._criteria import agreement_scales, make_criterion

    X, _, informative = make_planted_clusters(150, 4, 16, 3, random_state=0)
    multi = make_criterion(X, "multiscale_agreement", n_clusters=3,
                           rng=np.random.RandomState(5))
    assert agreement_scales(3, 150) == (3, 6, 12)
    singles = [make_criterion(X, "cluster_agreement", n_clusters=K,
                              rng=np.random.RandomState(5)) for K in (3, 6, 12)]
    for cols in (informative, np.arange(10, 16)):
        assert multi(cols) == pytest.approx(np.mean([f(cols) for f in singles]), abs=1e-15)


def test_multiscale_agreement_sees_structure_below_the_estimated_k():
    from ufsel.model_selection._criteria import make_criterion

    # two far-apart groups (columns 0, 1), each split into four sub-clusters (2, 3), and
    # noise (4-7). At K = 2 both the coarse columns with noise and the coarse columns
    # with the fine ones reproduce the full data's partition exactly; only the finer
    # scales tell them apart.
    rng = np.random.RandomState(0)
    n = 400
    group, sub = rng.randint(2, size=n), rng.randint(4, size=n)
    X = np.empty((n, 8))
    X[:, :2] = 20.0 * group[:, None] + 0.5 * rng.standard_normal((n, 2))
    X[:, 2] = 4.0 * sub + 0.3 * rng.standard_normal(n)
    X[:, 3] = 4.0 * ((sub + 2 * group) % 4) + 0.3 * rng.standard_normal(n)
    X[:, 4:] = rng.standard_normal((n, 4))
    one = make_criterion(X, "cluster_agreement", n_clusters=2, rng=np.random.RandomState(0))
    multi = make_criterion(X, "multiscale_agreement", n_clusters=2,
                           rng=np.random.RandomState(0))
    assert one([0, 1, 2, 3]) == one([0, 1, 4, 5]) == 1.0
    assert multi([0, 1, 2, 3]) > multi([0, 1, 4, 5]) + 0.3


def test_knn_criterion_independent_of_column_order():
    X, _, informative = make_planted_clusters(120, 4, 16, 3, random_state=0)
    perm = np.random.RandomState(0).permutation(20)
    inv = np.argsort(perm)
    a = random_subset_test(X, informative, n_draws=5, random_state=0).statistic
    b = random_subset_test(X[:, perm], inv[informative], n_draws=5, random_state=0).statistic
    assert a == b


# ------------------------------------------------------------- feature count
@pytest.mark.parametrize("criterion, floor", [("multiscale_agreement", 0.5),
                                               ("cluster_agreement", 0.9)])
def test_suggest_n_features_on_planted_ranking(criterion, floor):
    # ten weakly informative features (each separates the clusters only in part)
    X, _, informative = make_planted_clusters(300, 10, 90, 4, separation=1.5, noise_scale=0.8,
                                              random_state=0)
    d = X.shape[1]
    ranking = np.empty(d, dtype=int)
    order = np.r_[informative, np.setdiff1d(np.arange(d), informative)]
    ranking[order] = np.arange(1, d + 1)
    curve = suggest_n_features(X, ranking, criterion=criterion, random_state=0)
    assert 5 <= curve.n_features <= 15  # about the 10 planted features
    at = curve.counts == curve.n_features
    assert curve.values[at][0] > floor and curve.excess[at][0] > 0.4
    assert curve.counts.shape == curve.values.shape == curve.null_mean.shape
    assert np.all(np.diff(curve.counts) > 0)
    with pytest.raises(ValueError, match="permutation"):
        suggest_n_features(X, np.ones(d, dtype=int))


# -------------------------------------------------------------- AutoSelector
def test_auto_selector_planted():
    X, _, informative = make_planted_clusters(200, 5, 45, 4, random_state=0)
    sel = AutoSelector(choice="criterion", random_state=0, n_resamples=5).fit(X)
    assert sel.n_clusters_ == 4
    assert sel.method_ in ufsel.SELECTORS
    assert sel.verdict_.beats_random
    support = np.flatnonzero(sel.get_support())
    assert support.size == sel.n_features_to_select_
    assert np.isin(informative, support).all()  # every planted feature is selected
    top5 = np.flatnonzero(sel.ranking_ <= 5)
    assert np.isin(informative, top5).sum() >= 4  # and they are ranked first
    assert sel.transform(X).shape == (200, sel.n_features_to_select_)
    assert "better than a random subset" in sel.verdict_.summary()
    assert 0 < sel.verdict_.stability.value <= 1


def test_auto_selector_says_plainly_when_no_better_than_random():
    X = np.random.RandomState(0).standard_normal((150, 40))
    sel = select_features(X, n_clusters=3, n_features_to_select=4, n_resamples=0,
                          random_state=0)
    assert sel.n_features_to_select_ == 4
    assert not sel.verdict_.beats_random
    assert "NO better than a random subset" in sel.verdict_.summary()


def test_auto_selector_is_a_sklearn_selector():
    X, _, _ = make_planted_clusters(80, 3, 12, 3, separation=8.0, random_state=0)
    sel = AutoSelector(n_features_to_select=0.2, n_clusters=3, methods=["maxvariance", "spec"],
                       choice="criterion", n_resamples=0, random_state=0)
    assert clone(sel).get_params() == sel.get_params()
    sel.fit(X)
    assert sel.n_features_to_select_ == 3 and sel.get_support().sum() == 3
    assert {c["method"] for c in sel.candidates_} == {"maxvariance", "spec"}
    again = clone(sel).fit(X)
    assert np.array_equal(again.ranking_, sel.ranking_)
    with pytest.raises(ValueError, match="n_clusters"):
        AutoSelector(n_clusters=1).fit(X)
    with pytest.raises(ValueError, match="not found"):
        AutoSelector(methods=["nope"], n_clusters=2).fit(X)


def test_auto_selector_default_candidates_and_standardisation():
    # by default: the six fast methods on the data as given, those whose scores depend on
    # n_clusters (MCFS; not SPEC at its default phi2) once per scale of the criterion (K,
    # 2K, ... up to sqrt(n): 3 and 6 for n = 80), the others once; "estimate": each method
    # once, at K; "auto" adds each configuration but MaxVariance's on standardised data
    X, _, _ = make_planted_clusters(80, 3, 12, 3, separation=8.0, random_state=0)
    sel = AutoSelector(n_features_to_select=3, n_clusters=3, n_resamples=0, choice="criterion",
                       random_state=0).fit(X)
    assert agreement_scales(3, 80) == (3, 6)
    expected = [(m, k) for m in DEFAULT_METHODS
                for k in ((3, 6) if m == "mcfs" else (3,) if m == "spec" else (None,))]
    assert [(c["method"], c["n_clusters"]) for c in sel.candidates_] == expected
    assert "pivotedqr" in DEFAULT_METHODS
    assert not any(c["standardize"] for c in sel.candidates_)  # one unit: not standardised
    assert sel.params_["standardize"] is False
    # the chosen configuration holds the most relevant features among its top ones, then
    # has the largest mean z-score (the first such in candidate order)
    best = max(sel.candidates_, key=lambda c: (c["relevant_hits"] or 0, c["z_score"]))
    assert (sel.method_, sel.params_.get("n_clusters")) == (best["method"],
                                                            best["params"].get("n_clusters"))
    one = AutoSelector(n_features_to_select=3, n_clusters=3, n_resamples=0, choice="criterion",
                       candidate_n_clusters="estimate", random_state=0).fit(X)
    assert [c["method"] for c in one.candidates_] == list(DEFAULT_METHODS)
    assert all(c["params"].get("n_clusters", 3) == 3 for c in one.candidates_)
    # a configuration scores the same whichever set it is compared in (the same draws)
    z = {(c["method"], c["params"].get("n_clusters")): c["z_score"] for c in sel.candidates_}
    for c in one.candidates_:
        assert c["z_score"] == z[(c["method"], c["params"].get("n_clusters"))]
    std = AutoSelector(n_features_to_select=3, n_clusters=3, n_resamples=0, standardize=True,
                       choice="criterion", candidate_n_clusters="estimate",
                       random_state=0).fit(X)
    # every variance is 1 on standardised data: MaxVariance is no candidate there
    assert [c["method"] for c in std.candidates_] == list(DEFAULT_METHODS[1:])
    assert all(c["standardize"] for c in std.candidates_) and std.params_["standardize"]
    with pytest.raises(ValueError, match="candidate_n_clusters"):
        AutoSelector(candidate_n_clusters="all").fit(X)


def test_which_candidates_use_n_clusters():
    # AutoSelector tries a method at several cluster counts only where its scores depend
    # on n_clusters: SPEC's phi1 / phi2 use the whole spectrum, phi3 the first K vectors
    from ufsel import SPEC

    X, _, _ = make_planted_clusters(90, 3, 10, 3, random_state=2)
    for scoring in ("phi1", "phi2", "phi3"):
        a = SPEC(scoring=scoring, n_clusters=2).fit(X).scores_
        b = SPEC(scoring=scoring, n_clusters=6).fit(X).scores_
        assert get_selector_tags(SPEC(scoring=scoring)).uses_n_clusters == (scoring == "phi3")
        assert np.array_equal(a, b) == (scoring != "phi3")
    assert get_selector_tags(MCFS()).uses_n_clusters
    assert not get_selector_tags(MaxVariance()).uses_n_clusters


def test_auto_selector_uses_count_dependent_rankings_of_mcfs():
    """MCFS's ranking depends on its LARS cardinality: the candidates are compared with
    the ranking for each compared count, and the final ranking is MCFS's at the chosen
    count, not at the count it was first fitted with."""
    X, _, _ = make_planted_clusters(120, 6, 94, 3, random_state=1)
    sel = AutoSelector(n_features_to_select=30, n_clusters=3, methods=["mcfs"],
                       candidate_n_clusters="estimate", standardize=False, n_resamples=0,
                       random_state=0).fit(X)
    ref = MCFS(n_features_to_select=30, n_clusters=3, random_state=0).fit(X)
    assert sel.selector_.n_features_to_select_ == 30
    assert np.array_equal(sel.ranking_, ref.ranking_)
    at_ten_percent = MCFS(n_features_to_select=10, n_clusters=3, random_state=0).fit(X)
    assert not np.array_equal(at_ten_percent.ranking_, ref.ranking_)  # the count matters


def test_auto_selector_sparse_and_dataframe_input():
    pd = pytest.importorskip("pandas")
    from scipy import sparse

    X, _, _ = make_planted_clusters(120, 4, 16, 3, random_state=0)
    X = np.abs(X)
    X[X < 1] = 0.0
    sel = select_features(sparse.csr_matrix(X), n_clusters=3, n_resamples=0, random_state=0)
    assert sel.transform(sparse.csr_matrix(X)).shape == (120, sel.n_features_to_select_)
    df = pd.DataFrame(X, columns=[f"f{i}" for i in range(20)])
    sel = select_features(df, n_clusters=3, n_resamples=0, random_state=0)
    names = sel.get_feature_names_out()
    assert len(names) == sel.n_features_to_select_ and all(n.startswith("f") for n in names)


def test_assess_selection_judges_any_selection():
    from ufsel import MCFS
    from ufsel.datasets import make_planted_clusters
    from ufsel.model_selection import assess_selection

    X, _, informative = make_planted_clusters(random_state=0)
    good = assess_selection(X, informative, n_draws=30, random_state=0)
    assert good.beats_random and good.testable and good.stability is None
    noise = np.random.RandomState(0).randn(120, 12)
    bad = assess_selection(noise, [0, 1, 2], n_draws=30, random_state=0)
    assert not bad.beats_random and "NO better" in bad.summary()
    sel = MCFS(n_features_to_select=5, n_clusters=3, random_state=0)
    stable = assess_selection(X, informative[:5], estimator=sel, n_resamples=3,
                              n_draws=10, random_state=0)
    assert stable.stability is not None and stable.stability.selections.shape == (3, X.shape[1])
    with pytest.raises(ValueError, match="pass estimator"):
        assess_selection(X, informative, n_resamples=3)
    with pytest.raises(ValueError, match="n_draws"):
        assess_selection(X, informative, n_draws=1)


def test_auto_selector_units():
    # planted clusters, one noise column in units a thousand times larger
    X, _, informative = make_planted_clusters(150, 4, 16, 3, random_state=0)
    X[:, 0] *= 1000.0
    X[:, 5] *= 1000.0
    assert ufsel.model_selection.scale_spread(X) > ufsel.model_selection.UNITS_SPREAD
    auto = AutoSelector(n_features_to_select=4, n_clusters=3, n_resamples=0).fit(X)
    assert auto.params_["standardize"] is True
    with pytest.warns(UserWarning, match="Standardise X"):
        raw = AutoSelector(n_features_to_select=4, n_clusters=3, n_resamples=0,
                           standardize=False).fit(X)
    assert raw.params_["standardize"] is False
    one_unit, _, _ = make_planted_clusters(150, 4, 16, 3, random_state=0)
    assert ufsel.model_selection.scale_spread(one_unit) < 3


def test_smallest_testable_count():
    from ufsel.model_selection import smallest_testable_count

    assert smallest_testable_count(13) == 2  # 13 single features, 78 pairs
    assert smallest_testable_count(19) == 2 and smallest_testable_count(20) == 1
    assert smallest_testable_count(500) == 1
    assert smallest_testable_count(3) == 3  # three pairs, three singles: never testable
    # the route raises a curve's count of one on wine-like data and says why
    X, _, _ = make_planted_clusters(120, 1, 12, 3, separation=8.0, noise_scale=0.5,
                                    random_state=0)
    sel = AutoSelector(n_resamples=0, n_clusters=3).fit(X)
    assert sel.n_features_to_select_ >= 2 and sel.verdict_.testable
    if sel.curve_.n_features < 2:
        assert "smallest count" in sel.count_note_


def test_select_features_default_seed_matches_the_cli():
    X, _, _ = make_planted_clusters(120, 3, 12, 3, random_state=1)
    a = select_features(X, n_resamples=0)
    b = select_features(X, n_resamples=0)
    assert np.array_equal(a.ranking_, b.ranking_)
    assert a.n_features_to_select_ == b.n_features_to_select_
    assert AutoSelector().random_state == 0


@pytest.mark.parametrize("policy", ["default", "every problem large"])
def test_auto_selector_deterministic_across_thread_counts(policy, monkeypatch):
    from threadpoolctl import threadpool_limits

    if policy != "default":  # the candidates and k-means then run on the caller's threads
        monkeypatch.setattr("ufsel.utils._threads.SMALL_PROBLEM_SIZE", -1)
    X, _, _ = make_planted_clusters(160, 4, 20, 3, random_state=3)
    runs = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            sel = AutoSelector(n_resamples=2, methods=["laplacianscore", "mcfs", "spcafs",
                                                        "pivotedqr"]).fit(X)
        runs.append((sel.method_, sel.n_features_to_select_, sel.ranking_.tolist(),
                     sel.verdict_.p_value, [c["z_score"] for c in sel.candidates_]))
    assert runs[0] == runs[1]


def test_auto_selector_says_nothing_beats_random_on_noise():
    X = np.random.RandomState(0).standard_normal((200, 30))
    sel = select_features(X, n_resamples=0)
    assert not sel.verdict_.beats_random
    # no feature carries structure that the others share: the verdict says so, whether
    # the agreement test happened to pass on the held-out rows ("not shown") or not
    assert sel.verdict_.relevance.n_relevant == 0
    assert sel.verdict_.outcome in ("no better", "not shown")
    assert "no feature" in sel.verdict_.summary()


def test_adjusted_rand_matches_scikit_learn():
    from sklearn.metrics import adjusted_rand_score

    from ufsel.model_selection._criteria import _adjusted_rand

    rng = np.random.RandomState(0)
    for n, ka, kb in [(50, 3, 4), (200, 10, 2), (7, 1, 1), (30, 30, 30), (40, 1, 5)]:
        a, b = rng.randint(ka, size=n), rng.randint(kb, size=n)
        a, b = np.unique(a, return_inverse=True)[1], np.unique(b, return_inverse=True)[1]
        assert _adjusted_rand(a, b) == pytest.approx(adjusted_rand_score(a, b), abs=1e-12)
    same = rng.randint(4, size=60)
    assert _adjusted_rand(same, same) == 1.0


def test_print_shows_the_verdict():
    from ufsel.datasets import make_sanity_case

    case = make_sanity_case("gauss_newcomer", 0)
    sel = select_features(case.X, n_resamples=0)
    text = str(sel)
    assert text.startswith("AutoSelector(") and "verdict: beats random." in text
    assert f"{sel.n_features_to_select_} of 20 features" in text
    assert str(AutoSelector()) == repr(AutoSelector())
