"""Selection on a data file too large for memory: decide on a row sample, fit on every row."""

from __future__ import annotations

import os
import time

import numpy as np
from sklearn.base import clone
from sklearn.utils import Bunch

from ..utils import get_selector_tags, import_optional
from ..utils._tags import selectors_with

__all__ = ["DASK_SCHEDULER_ENV", "LARGE_FILE_MIN_ROWS", "SAMPLE_ROWS", "file_rows",
           "fit_all_rows", "select_large_file"]

#: A .npy or Parquet file with at least this many rows takes :func:`select_large_file`
#: in ``ufsel select`` (``--large-rows`` changes it).
LARGE_FILE_MIN_ROWS = 200_000
#: Rows of the sample on which the route decides (method, K, count, standardisation).
SAMPLE_ROWS = 20_000
#: Environment variable holding a Dask scheduler address for the final fit.
DASK_SCHEDULER_ENV = "UFSEL_DASK_SCHEDULER"


def file_rows(path, format=None):
    """The number of rows of a .npy or Parquet file, from its header (None for other files)."""
    from ..datasets._large import open_large_file

    try:
        return open_large_file(path, format=format).n_samples
    except ValueError:
        return None


def _progress_callable(progress):
    """``progress`` as ``(say(message), close())``: a :class:`~ufsel.utils.ProgressLine`
    for True, the callable itself, or nothing for False."""
    from ..utils import ProgressLine

    if progress is True:
        line = ProgressLine()
        return line, line.close
    if callable(progress):
        return progress, lambda: None
    return (lambda message: None), lambda: None


def select_large_file(path, *, method="auto", n_features="auto", n_clusters=None, params=None,
                      standardize="auto", format=None, drop_columns=(),
                      sample_rows=SAMPLE_ROWS, dask_scheduler=None, random_state=0,
                      progress=True, n_resamples=None, verdict_on_sample=True):
    """Feature selection on a large .npy or Parquet file, in bounded memory.

    Every decision is made on a uniform sample of ``sample_rows`` rows by the
    :class:`AutoSelector` that ``ufsel select`` runs in memory
    (:func:`~ufsel.model_selection._auto.route_selector`): the default route or
    the named method, with the same standardisation, K, count rule and
    verdict as on that sample in memory. :func:`fit_all_rows` then fits the
    chosen configuration on every row, with the same standardiser.

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
        K; None or "auto" estimates it on the sample.
    params : dict, optional
        Parameters of the named method.
    standardize : bool or "auto", default="auto"
        As in :class:`AutoSelector`: decided on the sample, applied to every row.
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
        Seeds the sample and the route.
    progress : bool or callable, default=True
        True shows the current step on one terminal line
        (:class:`~ufsel.utils.ProgressLine`); a callable receives each step's
        message; False shows nothing.
    n_resamples : int or None, default=None
        Refits for the stability, as in ``route_selector``.
    verdict_on_sample : bool, default=True
        Judge the selection on the sample (the route's verdict).

    Returns
    -------
    result : Bunch
        ``auto`` (the :class:`AutoSelector` fitted on the sample: its
        ``record()`` is the decision's record), ``selector`` (fitted on every
        row), ``method`` (class name), ``params``, ``n_features_to_select``,
        ``ranking``, ``scores``, ``support``, ``constant`` (constant columns),
        ``feature_names``, ``n_samples``, ``n_features``, ``format``,
        ``sample_rows``, ``standardized``, ``verdict`` (judged on the sample,
        or None), ``dask_scheduler`` and ``timing_s``.
    """
    from .._registry import get_selector
    from ..datasets._large import open_large_file
    from ._auto import route_selector

    dask_scheduler = dask_scheduler or os.environ.get(DASK_SCHEDULER_ENV) or None
    data = open_large_file(path, format=format, drop_columns=drop_columns)
    n, d = data.shape
    if isinstance(n_features, int) and not 1 <= n_features <= d:
        raise ValueError(f"n_features={n_features}: the data have {d} features.")
    if dask_scheduler and method != "auto":
        _check_dask(get_selector(method)())  # refused before the sample is decided on
    auto = route_selector(method, n_features_to_select=n_features, n_clusters=n_clusters,
                          method_params=params, standardize=standardize,
                          n_resamples=n_resamples, verdict=verdict_on_sample,
                          random_state=random_state)
    say, close = _progress_callable(progress)
    timings = {}
    try:
        t0 = time.perf_counter()
        say(f"reading a sample of {min(sample_rows, n):,} rows")
        S, _ = data.sample_rows(sample_rows, random_state=random_state)
        timings["sample_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        auto._progress = say
        try:
            auto.fit(S)
        finally:
            auto._progress = None
        timings["decide_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        est, constant = fit_all_rows(data, auto, dask_scheduler=dask_scheduler, progress=say)
        timings["fit_s"] = time.perf_counter() - t0
    finally:
        close()
    return Bunch(auto=auto, selector=est, method=type(est).__name__,
                 params=est.get_params(deep=False),
                 n_features_to_select=int(est.n_features_to_select_),
                 ranking=np.asarray(est.ranking_),
                 scores=np.asarray(est.scores_, dtype=np.float64),
                 support=np.asarray(est.get_support()), constant=np.asarray(constant),
                 feature_names=data.feature_names, n_samples=n, n_features=d,
                 format=data.format, sample_rows=int(S.shape[0]),
                 standardized=bool(auto.description_.standardized), verdict=auto.verdict_,
                 dask_scheduler=dask_scheduler, timing_s=timings)


def fit_all_rows(data, auto, *, dask_scheduler=None, progress=None):
    """Fit the configuration an :class:`AutoSelector` chose on a sample on every row.

    Parameters
    ----------
    data : LargeFile
        The opened file (:func:`ufsel.datasets._large.open_large_file`).
    auto : AutoSelector
        Fitted on a sample of ``data``'s rows: its ``selector_`` (method,
        parameters, count) and its ``description_.standardized``.
    dask_scheduler : str or None, default=None
        Fit on this Dask cluster, the file read lazily by its workers (for the
        selectors that accept dask arrays); None fits in memory, on one float32
        array filled block by block (a .npy file through a memory map, Parquet
        by row groups; no other copy of the data).
    progress : callable or None, default=None
        Receives a message per step and per block of rows read.

    Returns
    -------
    selector : fitted selector
        A clone of ``auto.selector_`` fitted on every row, standardised with
        :func:`~ufsel.model_selection.standardized` when the route standardised.
    constant : ndarray of bool of shape (n_features,)
        The constant columns of the whole file.
    """
    from ..linalg import constant_features
    from ._criteria import standardized

    say = progress if progress is not None else (lambda message: None)
    est = clone(auto.selector_)
    std = bool(auto.description_.standardized)
    n = data.shape[0]
    name = type(est).__name__
    if dask_scheduler:
        _check_dask(est)
        with _dask_client(dask_scheduler):
            X = data.to_dask(dtype=np.float32)
            say("column statistics on the cluster")
            constant = constant_features(X)
            if std:
                X = standardized(X)
            say(f"fitting {name} on all {n:,} rows (Dask, {dask_scheduler})")
            est.fit(X)
        return est, constant
    X = data.to_numpy(dtype=np.float32,
                      progress=lambda done: say(f"reading rows: {done:,} of {n:,}"))
    constant = constant_features(X)
    if std:
        standardized(X, copy=False)  # in place, block by block
    say(f"fitting {name} on all {n:,} rows")
    est.fit(X)
    return est, constant


def _check_dask(est):
    """Refuse, in one line, a selector that cannot be fitted on a dask array."""
    if not get_selector_tags(est).supports_dask:
        able = ", ".join(sorted(c.__name__ for c in selectors_with("supports_dask").values()))
        raise ValueError(f"{type(est).__name__} does not accept dask arrays, so it cannot be "
                         f"fitted on the cluster; selectors that do: {able}. Drop --dask "
                         "to fit in memory.")


def _dask_client(address):
    distributed = import_optional("distributed", purpose="--dask SCHEDULER_ADDRESS")
    return distributed.Client(address)
