"""The sanity suite: small data sets whose right answer is known.

Each case plants cluster structure in a few columns among noise columns (and records which),
or has no structure at all (a null case, where "beats random" must never be said). The
label-free route is judged on them by ``benchmarks/label_free/sanity_suite.py`` and, on a
few cases, by the tests.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from scipy import sparse

__all__ = ["SanityCase", "SANITY_GENERATORS", "make_sanity_case", "sanity_suite"]


@dataclass(frozen=True)
class SanityCase:
    """One data set of the sanity suite.

    Parameters
    ----------
    name : str
        The generator's name.
    seed : int
        Its seed.
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,) or None
        The planted clusters (None for a null case).
    planted : ndarray of int
        The columns that carry the structure (empty for a null case).
    kind : {"planted", "null", "correlated"}
        "planted": clusters in ``planted`` among noise; "null": independent
        columns, no structure; "correlated": a continuous factor shared by the
        ``planted`` columns and no clusters (see the guide on what the verdict
        says there).
    """

    name: str
    seed: int
    X: object
    y: np.ndarray | None
    planted: np.ndarray
    kind: str

    def __repr__(self):
        return (f"SanityCase({self.name!r}, seed={self.seed}, shape={self.X.shape}, "
                f"kind={self.kind!r}, planted={self.planted.size})")


def _labels(rng, n, K):
    return rng.permutation(np.arange(n) % K)


def _assemble(rng, informative, noise, y, kind="planted"):
    """Columns shuffled; the planted ones' new indices recorded."""
    X = np.hstack([informative, noise])
    perm = rng.permutation(X.shape[1])
    X = X[:, perm]
    planted = np.flatnonzero(perm < informative.shape[1])
    return X, y, planted, kind


def _centres(rng, K, m, separation):
    """Cluster centres whose every column spans at least ``separation``: each planted
    column then separates some clusters."""
    centres = separation * rng.standard_normal((K, m))
    for j in range(m):
        while np.ptp(centres[:, j]) < separation:
            centres[:, j] = separation * rng.standard_normal(K)
    return centres


def _levels(rng, K, m, low, high):
    """A K x m table of ``low`` and ``high``: column j is ``high`` in cluster j mod K and
    random elsewhere, never the same in every cluster."""
    table = rng.choice([low, high], size=(K, m))
    for j in range(m):
        table[:, j] = np.where(np.arange(K) == j % K, high, table[:, j])
        if np.all(table[:, j] == high):
            table[(j + 1) % K, j] = low
    return table


def _gaussian(rng, n, n_inf, n_noise, K, separation=4.0, noise_scale=1.5):
    y = _labels(rng, n, K)
    inf = _centres(rng, K, n_inf, separation)[y] + rng.standard_normal((n, n_inf))
    return _assemble(rng, inf, noise_scale * rng.standard_normal((n, n_noise)), y)


def _gauss_small(rng):
    return _gaussian(rng, 200, 3, 10, 2)


def _gauss_newcomer(rng):
    return _gaussian(rng, 500, 4, 16, 4)


def _gauss_route(rng):
    return _gaussian(rng, 2000, 6, 30, 5)


def _gauss_wide(rng):
    return _gaussian(rng, 300, 5, 300, 3)


def _gauss_many_noise(rng):
    return _gaussian(rng, 1000, 20, 500, 6, separation=3.0)


def _gauss_large(rng):
    return _gaussian(rng, 20000, 10, 90, 8)


def _units(rng):
    """Planted features in units a thousand times those of the noise."""
    X, y, planted, kind = _gaussian(rng, 600, 5, 25, 4)
    X[:, planted] *= 1000.0
    return X, y, planted, kind


def _near_copies(rng):
    """Four planted features, each with two near copies (correlation about 0.98)."""
    y = _labels(rng, 600, 4)
    base = _centres(rng, 4, 4, 4.0)[y] + rng.standard_normal((600, 4))
    copies = [base + 0.6 * rng.standard_normal(base.shape) for _ in range(2)]
    return _assemble(rng, np.hstack([base] + copies), 1.5 * rng.standard_normal((600, 30)), y)


def _poisson_counts(rng):
    """Counts: planted Poisson rates differ by cluster, noise rates do not."""
    n, K = 800, 4
    y = _labels(rng, n, K)
    rates = _levels(rng, K, 6, 1.0, 8.0)
    inf = rng.poisson(rates[y]).astype(np.float64)
    noise = rng.poisson(rng.uniform(1.0, 8.0, size=30), size=(n, 30)).astype(np.float64)
    return _assemble(rng, inf, noise, y)


def _negative_binomial(rng):
    """Overdispersed counts (negative binomial, dispersion 2)."""
    n, K = 800, 3
    y = _labels(rng, n, K)
    means = _levels(rng, K, 6, 2.0, 20.0)
    r = 2.0
    inf = rng.negative_binomial(r, r / (r + means[y])).astype(np.float64)
    mu = rng.uniform(2.0, 20.0, size=40)
    noise = rng.negative_binomial(r, r / (r + mu), size=(n, 40)).astype(np.float64)
    return _assemble(rng, inf, noise, y)


def _binary(rng):
    """Binary features: planted Bernoulli probabilities differ by cluster."""
    n, K = 800, 3
    y = _labels(rng, n, K)
    probs = _levels(rng, K, 8, 0.1, 0.9)
    inf = (rng.random_sample((n, 8)) < probs[y]).astype(np.float64)
    noise = (rng.random_sample((n, 40)) < rng.uniform(0.1, 0.9, size=40)).astype(np.float64)
    return _assemble(rng, inf, noise, y)


def _sparse_nonneg(rng):
    """Sparse non-negative features (about 20 % non-zero); each cluster switches on its
    own planted features."""
    n, K, per = 1000, 4, 3
    y = _labels(rng, n, K)
    on = np.zeros((K, K * per), dtype=bool)
    for k in range(K):
        on[k, k * per:(k + 1) * per] = True
    inf = np.where(on[y] & (rng.random_sample((n, K * per)) < 0.8),
                   rng.exponential(3.0, size=(n, K * per)), 0.0)
    noise = np.where(rng.random_sample((n, 60)) < 0.2, rng.exponential(3.0, (n, 60)), 0.0)
    X, y, planted, kind = _assemble(rng, inf, noise, y)
    return sparse.csr_matrix(X), y, planted, kind


def _elongated(rng):
    """Gaussian clusters stretched by a random linear map of the planted features."""
    n, n_inf, K = 800, 5, 4
    y = _labels(rng, n, K)
    A = rng.standard_normal((n_inf, n_inf)) * np.array([3.0, 1.0, 1.0, 0.3, 0.3])
    inf = _centres(rng, K, n_inf, 5.0)[y] + rng.standard_normal((n, n_inf)) @ A
    return _assemble(rng, inf, 1.5 * rng.standard_normal((n, 25)), y)


def _nonconvex(rng):
    """Two interleaved half-moons in two planted features, and two noisy views of them."""
    n = 600
    y = _labels(rng, n, 2)
    t = rng.uniform(0, np.pi, n)
    x1 = np.where(y == 0, np.cos(t), 1.0 - np.cos(t))
    x2 = np.where(y == 0, np.sin(t), 0.5 - np.sin(t))
    moons = np.column_stack([x1, x2])
    inf = np.hstack([moons, moons @ rng.standard_normal((2, 2))]) \
        + 0.1 * rng.standard_normal((n, 4))
    return _assemble(rng, inf, 0.7 * rng.standard_normal((n, 20)), y)


def _null_gaussian(rng):
    return _null(rng, 500, [("normal", 20)])


def _null_wide(rng):
    return _null(rng, 200, [("normal", 200)])


def _null_mixed(rng):
    """Independent features of mixed distributions and units."""
    return _null(rng, 800, [("normal", 8), ("exponential", 8), ("binary", 8),
                            ("poisson", 8)])


def _null(rng, n, blocks):
    cols = []
    for kind, m in blocks:
        if kind == "normal":
            cols.append(rng.standard_normal((n, m)) * rng.uniform(0.5, 5.0, m))
        elif kind == "exponential":
            cols.append(rng.exponential(rng.uniform(1.0, 100.0, m), (n, m)))
        elif kind == "binary":
            cols.append((rng.random_sample((n, m)) < rng.uniform(0.1, 0.9, m)).astype(float))
        else:
            cols.append(rng.poisson(rng.uniform(0.5, 10.0, m), (n, m)).astype(float))
    X = np.hstack(cols)
    return X[:, rng.permutation(X.shape[1])], None, np.array([], dtype=np.intp), "null"


def _correlated(rng):
    """One continuous factor shared by six features, twenty noise features, no clusters."""
    n = 600
    factor = rng.standard_normal((n, 1))
    inf = factor @ rng.uniform(1.0, 2.0, (1, 6)) + 0.5 * rng.standard_normal((n, 6))
    X, _, planted, _ = _assemble(rng, inf, rng.standard_normal((n, 20)), None)
    return X, None, planted, "correlated"


#: The generators, by name (each ``rng -> (X, y, planted, kind)``).
SANITY_GENERATORS = {
    "gauss_small": _gauss_small,
    "gauss_newcomer": _gauss_newcomer,
    "gauss_route": _gauss_route,
    "gauss_wide": _gauss_wide,
    "gauss_many_noise": _gauss_many_noise,
    "gauss_large": _gauss_large,
    "units": _units,
    "near_copies": _near_copies,
    "poisson_counts": _poisson_counts,
    "negative_binomial": _negative_binomial,
    "binary": _binary,
    "sparse_nonneg": _sparse_nonneg,
    "elongated": _elongated,
    "nonconvex": _nonconvex,
    "null_gaussian": _null_gaussian,
    "null_wide": _null_wide,
    "null_mixed": _null_mixed,
    "correlated": _correlated,
}


def make_sanity_case(name, seed=0):
    """One case of the sanity suite.

    Parameters
    ----------
    name : str
        A key of :data:`SANITY_GENERATORS`.
    seed : int, default=0
        Seeds the case.

    Returns
    -------
    SanityCase
    """
    if name not in SANITY_GENERATORS:
        raise ValueError(f"unknown sanity case {name!r}; valid options are "
                         f"{sorted(SANITY_GENERATORS)}.")
    rng = np.random.RandomState(np.random.SeedSequence([int(seed), zlib.crc32(name.encode())]).generate_state(1))
    X, y, planted, kind = SANITY_GENERATORS[name](rng)
    return SanityCase(name=name, seed=int(seed), X=X, y=y,
                      planted=np.asarray(planted, dtype=np.intp), kind=kind)


def sanity_suite(names=None, seeds=range(5)):
    """Every case of the sanity suite (each generator at each seed).

    Parameters
    ----------
    names : sequence of str, default=None
        Generators to use (None: all of :data:`SANITY_GENERATORS`).
    seeds : iterable of int, default=range(5)
        Seeds of each generator.

    Yields
    ------
    SanityCase
    """
    for name in (SANITY_GENERATORS if names is None else names):
        for seed in seeds:
            yield make_sanity_case(name, seed)
