"""LGDFS's anchor form: the paper's form when every sample is its own anchor, a descent,
the planted features, and the paper's form unchanged below the anchor threshold."""

import numpy as np
import pytest

from ufsel import LGDFS
from ufsel.datasets import make_planted
from ufsel.selectors.sparse_regression._lgdfs import (
    _laplacians,
    lgdfs_embedding,
    lgdfs_objective,
    lgdfs_regression_norms,
    lgdfs_z_step,
    local_regression_norms,
)
from ufsel.selectors.sparse_regression._lgdfs_anchor import AnchorLGDFS, lgdfs_anchor_objective
from ufsel.utils._memory import estimate_fit_memory

ALPHA, LAM_G, LAM_L = 0.7, 1.3, 0.9


@pytest.fixture(scope="module")
def planted():
    return make_planted(3000, 20, 5, n_clusters=4, dtype=np.float64, random_state=0)


@pytest.fixture(scope="module")
def small():
    X = make_planted(240, 12, 4, n_clusters=3, dtype=np.float64, random_state=1)[0]
    z = np.random.default_rng(0).uniform(0.2, 1.0, X.shape[1])
    return X, z / z.sum()


def _anchor_steps(p, z):
    regions = p.regions(z, 5)
    L_a, blocks = p.local_laplacian(z, regions, LAM_L)
    M_g, parts = p.global_parts(z, LAM_G)
    return regions, L_a, blocks, M_g, parts


def test_every_sample_its_own_anchor_is_the_paper_form(small):
    X, z = small
    p = AnchorLGDFS.identity(X)
    regions, L_a, blocks, M_g, parts = _anchor_steps(p, z)
    L_l, L_g, inv, exact_blocks = _laplacians(X, z, regions, LAM_G, LAM_L)
    Y, w = lgdfs_embedding(L_l, L_g, ALPHA, 3, eigen_solver="dense")
    C, w_anchor = p.embedding(L_a + ALPHA * M_g, 3)
    np.testing.assert_allclose(w_anchor, w, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(np.abs(Y.T @ C), np.eye(3), atol=1e-6)
    assert lgdfs_anchor_objective(p, Y, z, regions, ALPHA, LAM_G, LAM_L) == pytest.approx(
        lgdfs_objective(X, Y, z, regions, ALPHA, LAM_G, LAM_L), rel=1e-10)
    wbar, fit = lgdfs_regression_norms(X, Y, z, regions, ALPHA, LAM_G, LAM_L)
    l_wbar, l_fit = local_regression_norms(p.points, p.sample_embedding(Y), z, regions, LAM_L,
                                           local_blocks=blocks)
    g_wbar, g_fit = p.global_regression_norms(Y, z, LAM_G, parts)
    np.testing.assert_allclose(l_wbar + ALPHA * g_wbar, wbar, rtol=1e-9, atol=1e-14)
    assert l_fit + ALPHA * g_fit == pytest.approx(fit, rel=1e-9)


def test_region_weights_weigh_each_region(small):
    X, z = small
    regions = AnchorLGDFS.identity(X).regions(z, 5)  # k = 6 points per region
    Y = np.random.default_rng(1).standard_normal((X.shape[0], 8))
    w = np.random.default_rng(2).integers(1, 4, X.shape[0])
    # region by region (c <= k): weight w_i = the region counted w_i times
    narrow, fit = local_regression_norms(X, Y[:, :4], z, regions, LAM_L, region_weights=w)
    rep, rep_fit = local_regression_norms(X, Y[:, :4], z, np.repeat(regions, w, axis=0), LAM_L)
    np.testing.assert_allclose(narrow, rep, rtol=1e-9)
    assert fit == pytest.approx(rep_fit, rel=1e-9)
    # the sparse form (c > k) against the column halves (each c <= k): the norms add up
    wide, wide_fit = local_regression_norms(X, Y, z, regions, LAM_L, region_weights=w)
    halves = [local_regression_norms(X, Y[:, s], z, regions, LAM_L, region_weights=w)
              for s in (slice(0, 4), slice(4, 8))]
    np.testing.assert_allclose(wide, halves[0][0] + halves[1][0], rtol=1e-9)
    assert wide_fit == pytest.approx(halves[0][1] + halves[1][1], rel=1e-9)


def test_y_and_z_steps_decrease_the_anchor_objective(planted):
    X = planted[0]
    p = AnchorLGDFS.from_data(X, 150, 5, random_state=0)
    z = np.full(X.shape[1], 1.0 / X.shape[1])
    regions, L_a, blocks, M_g, parts = _anchor_steps(p, z)
    C, _ = p.embedding(L_a + ALPHA * M_g, 4)
    # Y-step: constraints, and no feasible start is better
    Y = p.embed(C)
    np.testing.assert_allclose(Y.T @ Y, np.eye(4), atol=1e-8)
    np.testing.assert_allclose(Y.sum(axis=0), 0.0, atol=1e-8)
    value = lgdfs_anchor_objective(p, C, z, regions, ALPHA, LAM_G, LAM_L)
    R = np.random.default_rng(0).standard_normal(C.shape)
    R -= np.outer(np.ones(len(R)), p.anchor_degree @ R / p.n_samples)  # 1^T Z R = 0
    R = R @ np.linalg.inv(np.linalg.cholesky(R.T @ p.ZtZ @ R)).T  # (Z R)^T Z R = I
    assert value <= lgdfs_anchor_objective(p, R, z, regions, ALPHA, LAM_G, LAM_L)
    # z-step (fixed regions and Y): Eq. (8) at the new z is at most Eq. (9), at most Eq. (8)
    l_wbar, _ = local_regression_norms(p.points, p.sample_embedding(C), z, regions, LAM_L,
                                       local_blocks=blocks)
    g_wbar, _ = p.global_regression_norms(C, z, LAM_G, parts)
    z_new = lgdfs_z_step(p.region_weight * l_wbar + ALPHA * g_wbar)
    assert lgdfs_anchor_objective(p, C, z_new, regions, ALPHA, LAM_G, LAM_L) <= value * (1 + 1e-12)


def test_anchor_form_finds_the_planted_features(planted):
    X, _, informative = planted
    sel = LGDFS(5, n_clusters=4, graph="anchor", n_anchors=300, random_state=0).fit(X)
    assert len(set(np.flatnonzero(sel.get_support())) & set(informative)) >= 4
    assert sel.feature_weights_.sum() == pytest.approx(1.0)
    assert sel.embedding_.shape == (X.shape[0], 4)
    assert np.all(np.isfinite(sel.objective_))


def test_auto_is_the_paper_form_below_the_threshold():
    X = make_planted(400, 15, 4, n_clusters=3, dtype=np.float64, random_state=0)[0]
    a = LGDFS(5, n_clusters=3, max_iter=4, random_state=0).fit(X)
    k = LGDFS(5, n_clusters=3, max_iter=4, random_state=0, graph="knn").fit(X)
    np.testing.assert_array_equal(a.scores_, k.scores_)
    np.testing.assert_array_equal(a.objective_, k.objective_)


def test_memory_estimate_of_the_anchor_form_is_linear():
    est = estimate_fit_memory(LGDFS(), (70_000, 784))
    assert est.total < 4 * 2**30
    paper = estimate_fit_memory(LGDFS(graph="knn"), (70_000, 784))
    assert paper.total > est.total
    # ten times the rows, at most about ten times the memory (no n x n term)
    big = estimate_fit_memory(LGDFS(), (700_000, 784))
    assert big.total < 11 * est.total
    assert not any(f"{700_000} x {700_000}" in term for term in big.terms)
