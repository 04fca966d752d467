"""Selection on a data file too large for the route: decide on a row sample, fit on every row."""

from __future__ import annotations

import os
import sys
import time

import numpy as np
from sklearn.utils import Bunch

from ..utils import get_selector_tags, import_optional
from ..utils._tags import selectors_with

__all__ = ["DASK_SCHEDULER_ENV", "LARGE_FILE_MIN_ROWS", "SAMPLE_ROWS", "Progress",
           "file_rows", "select_large_file"]

#: A .npy or Parquet file with at least this many rows takes :func:`select_large_file`
#: in ``ufsel select`` (``--large-rows`` changes it).
LARGE_FILE_MIN_ROWS = 200_000
#: Rows of the sample on which the route decides (method, K, count, standardisation).
SAMPLE_ROWS = 20_000
#: Environment variable holding a Dask scheduler address for the final fit.
DASK_SCHEDULER_ENV = "UFSEL_DASK_SCHEDULER"


class Progress:
    """A progress bar of the rows read and the steps run: tqdm when installed, else plain lines.

    Parameters
    ----------
    total : int
        Rows to read.
    enabled : bool, default=True
    stream : file, default=sys.stderr
    """

    def __init__(self, total, *, enabled=True, stream=None):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = enabled
        self.total = int(total)
        self._bar = None
        self._last = -1
        if enabled:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=self.total, unit="rows", unit_scale=True, file=self.stream,
                                 leave=False)

    def step(self, message):
        """Announce a step (a line of its own)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_description_str(message)
            self._bar.refresh()
        else:
            print(f"ufsel: {message}", file=self.stream, flush=True)

    def rows(self, done):
        """Rows read so far."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(int(done) - self._bar.n)
        else:
            tenth = int(10 * done // max(self.total, 1))
            if tenth > self._last:
                self._last = tenth
                print(f"ufsel: read {done:,} of {self.total:,} rows", file=self.stream,
                      flush=True)

    def close(self):
        if self._bar is not None:
            self._bar.close()


def file_rows(path, format=None):
    """The number of rows of a .npy or Parquet file, from its header (None for other files)."""
    from ..datasets._large import open_large_file

    try:
        return open_large_file(path, format=format).n_samples
    except ValueError:
        return None


def select_large_file(path, *, method="auto", n_features="auto", n_clusters=None, params=None,
                      standardize=False, format=None, drop_columns=(),
                      sample_rows=SAMPLE_ROWS, dask_scheduler=None, random_state=0,
                      progress=True, verdict_on_sample=True):
    """Feature selection on a large .npy or Parquet file, in bounded memory.

    The decisions are made on a uniform sample of ``sample_rows`` rows: with
    ``method="auto"`` :class:`AutoSelector` chooses the method, its parameters,
    the standardisation and the count; for a named method, K
    (:func:`estimate_n_clusters`) and the count (:func:`suggest_n_features`)
    when they are ``"auto"``. The chosen selector is then fitted on every row:
    in memory, on one float32 array filled block by block from the file (a
    .npy file through a memory map, Parquet by row groups; no other copy of
    the data), or, with ``dask_scheduler``, on a dask array read block by block
    by the cluster's workers (for the selectors that accept dask arrays).

    Parameters
    ----------
    path : str or path-like
        A .npy array or a Parquet table of numeric columns.
    method : str, default="auto"
        A registered selector name, or ``"auto"``.
    n_features : int, float or "auto", default="auto"
        Features to select (a count, a fraction of the features, or chosen on
        the sample).
    n_clusters : int, "auto" or None, default=None
        K for the selectors that take it; None or "auto" estimates it on the sample.
    params : dict, optional
        Parameters of the named method.
    standardize : bool, default=False
        Standardise every feature (with ``method="auto"`` the route may
        standardise on its own when the features' units differ).
    format : {"npy", "parquet"}, optional
        Taken from the extension when None.
    drop_columns : sequence of str, default=()
        Parquet columns that are not features.
    sample_rows : int, default=20000
        Rows of the sample the decisions are made on.
    dask_scheduler : str, optional
        Address of a Dask scheduler for the final fit; None reads the
        environment variable ``UFSEL_DASK_SCHEDULER`` (no cluster when unset).
    random_state : int, default=0
        Seeds the sample and the selectors.
    progress : bool, default=True
        Show the rows read and the steps on stderr (tqdm when installed, else
        plain lines).
    verdict_on_sample : bool, default=True
        Judge a named method's selection on the sample as the automatic route
        judges its own (:func:`assess_selection`, held out); with
        ``method="auto"`` the route's own verdict, also on the sample, is kept.

    Returns
    -------
    result : Bunch
        ``selector`` (fitted on every row), ``method`` (class name), ``params``,
        ``n_features_to_select``, ``ranking``, ``scores``, ``support``,
        ``constant`` (constant columns), ``feature_names``, ``n_samples``,
        ``n_features``, ``format``, ``sample_rows``, ``decisions`` (how each
        value was chosen), ``auto`` (the :class:`AutoSelector` fitted on the
        sample, or None), ``verdict`` (the :class:`Verdict` judged on the
        sample, or None), ``dask_scheduler`` and ``timing_s``.
    """
    from .._registry import get_selector
    from ..datasets._large import open_large_file
    from ..linalg import column_mean_var, constant_features
    from ._auto import AutoSelector
    from ._feature_count import suggest_n_features
    from ._n_clusters import estimate_n_clusters

    dask_scheduler = dask_scheduler or os.environ.get(DASK_SCHEDULER_ENV) or None
    data = open_large_file(path, format=format, drop_columns=drop_columns)
    n, d = data.shape
    if isinstance(n_features, int) and not 1 <= n_features <= d:
        raise ValueError(f"n_features={n_features}: the data have {d} features.")
    timings = {}
    bar = Progress(n, enabled=progress)
    try:
        t0 = time.perf_counter()
        bar.step(f"reading a sample of {min(sample_rows, n):,} rows")
        S, _ = data.sample_rows(sample_rows, random_state=random_state)
        timings["sample_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        bar.step(f"deciding on the sample ({S.shape[0]:,} rows)")
        decisions, auto = {}, None
        if method == "auto":
            auto = AutoSelector(n_features_to_select=n_features,
                                n_clusters="auto" if n_clusters is None else n_clusters,
                                standardize=True if standardize else "auto",
                                random_state=random_state).fit(S)
            cls = get_selector(auto.method_)
            chosen = dict(auto.params_)
            standardize = bool(chosen.pop("standardize", standardize))
            k = int(auto.n_features_to_select_)
            decisions = {"method": "auto (AutoSelector on the sample)",
                         "n_features_to_select": "auto (AutoSelector on the sample)"}
        else:
            cls = get_selector(method)
            chosen = dict(params or {})
            valid = cls().get_params()
            Ss = _standardize_sample(S) if standardize else S
            K = chosen.get("n_clusters")
            if K is None and ("n_clusters" in valid or n_features == "auto"):
                if n_clusters in (None, "auto"):
                    K = int(estimate_n_clusters(Ss, random_state=random_state))
                    decisions["n_clusters"] = "auto: eigengap on the sample"
                else:
                    K = int(n_clusters)
                if "n_clusters" in valid:
                    chosen["n_clusters"] = K
            if "random_state" in valid:
                chosen.setdefault("random_state", random_state)
            if n_features == "auto":
                ranking = cls(n_features_to_select=None, **chosen).fit(Ss).ranking_
                k = int(suggest_n_features(Ss, ranking, n_clusters=K,
                                           random_state=random_state).n_features)
                decisions["n_features_to_select"] = "auto: feature-count curve on the sample"
            else:
                k = n_features
        timings["decide_s"] = time.perf_counter() - t0

        t0 = time.perf_counter()
        est = cls(n_features_to_select=k, **chosen)
        if dask_scheduler:
            with _dask_client(dask_scheduler):
                X, constant = _dask_data(data, est, standardize, bar)
                bar.step(f"fitting {cls.__name__} on all {n:,} rows (Dask, {dask_scheduler})")
                est.fit(X)
        else:
            bar.step(f"reading all {n:,} rows")
            X = data.to_numpy(dtype=np.float32, progress=bar.rows)
            constant = constant_features(X)
            if standardize:
                mean, var = column_mean_var(X)
                scale = np.where(var > 0, np.sqrt(var), 1.0).astype(np.float32)
                for s in range(0, n, 2**16):  # in place, block by block
                    X[s:s + 2**16] -= mean.astype(np.float32)
                    X[s:s + 2**16] /= scale
            bar.step(f"fitting {cls.__name__} on all {n:,} rows")
            est.fit(X)
        timings["fit_s"] = time.perf_counter() - t0
    finally:
        bar.close()
    ranking = np.asarray(est.ranking_)
    verdict = None if auto is None else auto.verdict_
    if verdict is None and verdict_on_sample and k < d:
        # the named method's selection judged as the route judges its own: the procedure
        # refitted on half the sample, tested on the other half
        from ._verdict import assess_selection

        t0 = time.perf_counter()
        Ss = _standardize_sample(S) if standardize else S
        verdict = assess_selection(Ss, np.arange(k), estimator=cls(n_features_to_select=k,
                                                                   **chosen),
                                   method=cls.__name__, held_out=Ss.shape[0] >= 20,
                                   random_state=random_state)
        timings["verdict_s"] = time.perf_counter() - t0
    return Bunch(verdict=verdict,selector=est, method=cls.__name__, params=est.get_params(deep=False),
                 n_features_to_select=int(est.n_features_to_select_), ranking=ranking,
                 scores=np.asarray(est.scores_, dtype=np.float64),
                 support=np.asarray(est.get_support()), constant=np.asarray(constant),
                 feature_names=data.feature_names, n_samples=n, n_features=d,
                 format=data.format, sample_rows=int(S.shape[0]), standardized=standardize,
                 decisions=decisions, auto=auto, dask_scheduler=dask_scheduler,
                 timing_s=timings)


def _standardize_sample(S):
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(S)


def _dask_client(address):
    distributed = import_optional("distributed", purpose="--dask SCHEDULER_ADDRESS")
    return distributed.Client(address)


def _dask_data(data, est, standardize, bar):
    """The file as a dask array for ``est`` (refused with one line when it cannot take one),
    standardised lazily when asked, and its constant columns."""
    from ..linalg import column_mean_var, constant_features

    if not get_selector_tags(est).supports_dask:
        able = ", ".join(sorted(c.__name__ for c in selectors_with("supports_dask").values()))
        raise ValueError(f"{type(est).__name__} does not accept dask arrays, so it cannot be "
                         f"fitted on the cluster; selectors that do: {able}. Drop --dask "
                         "to fit in memory.")
    X = data.to_dask(dtype=np.float32)
    bar.step("column statistics on the cluster")
    constant = constant_features(X)
    if standardize:
        mean, var = column_mean_var(X)
        X = ((X - mean) / np.where(var > 0, np.sqrt(var), 1.0)).astype(np.float32)
    return X, constant
