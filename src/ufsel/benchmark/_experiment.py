"""Experiment files: reading, validating and resolving them.

An experiment is a TOML file (or the equivalent dict) with these tables::

    datasets = ["digits"]              # top-level: before the first [table],
                                       # or [[datasets]] name=..., preprocess=...
    [experiment]
    name = "demo_digits"               # used in file names
    title = "..."                      # shown in the report
    paper = "..."                      # citation, optional
    description = "..."                # optional

    [evaluation]
    n_features = [5, 10, 20, 30]       # numbers of selected features
    kmeans_runs = 20                   # k-means repeats per evaluation
    kmeans_report = "mean"             # or "best_objective" (MCFS)
    kmeans_init = "random"             # or "k-means++" (FSEVAL's protocol)
    nn_loo = true                      # also the 1-NN leave-one-out error
    seed = 0                           # k-means seeds, selector random_state
    random_baseline_seeds = 5          # random subsets of each size
    tuning = ["defaults", "best_over_grid"]
    protocols = ["n_classes"]          # and/or "label_free" (see below)
    fit_timeout = 60                   # seconds per fit (0: no cap)
    metrics = ["acc", "nmi", "nmi_arithmetic", "nn_error"]   # optional

    [evaluation.grids]                 # optional: named feature-count grids
    fseval_small = { ratios = [0.005, 0.01] }   # k = ceil(ratio * d)
    papers = { counts = [10, 20, 50] }

    [methods.mcfs]                     # a registered selector name ...
    fixed = { n_clusters = "n_classes", n_neighbors = 5 }
    grid = { n_neighbors = [3, 5, 10] }

    [methods.mcfs_heat]                # ... or any label with selector = "..."
    selector = "mcfs"
    fixed = { weight = "heat" }

    [[published]]                      # the paper's printed numbers
    source = "Table 7"
    metric = "nn_error"                # "acc", "nmi" or "nn_error"
    n_features = 50                    # or "all" for the all-features row
    scale = 100                        # the paper prints percentages
    [published.values.orl]
    mcfs = 8.5
    all_features = 5.3

``fixed`` parameters are the protocol (both tuning modes use them);
``grid`` parameters are searched in the "best_over_grid" mode only: the
"defaults" mode uses the selector's own defaults for them. A parameter value
``"n_classes"`` (or ``"n_classes-1"``, ``"n_classes+2"``) is replaced by the
data set's number of classes. A selector with an ``n_clusters`` parameter
gets ``n_clusters = n_classes`` unless the file sets it (every paper's
protocol: c = the number of classes); ``random_state`` defaults to the
experiment's seed.

Protocols: the cluster count given to the selectors comes from somewhere.
``"n_classes"`` (the papers' protocol) takes it *from the labels*: every
``"n_classes"`` token and the automatic ``n_clusters`` become the number of
classes. ``"label_free"`` replaces both by
:func:`ufsel.model_selection.estimate_n_clusters` on X alone, which is what a
user without labels can do. The evaluation (k-means with the number of
classes, ACC, NMI, 1-NN error) always uses the labels; that is what the
benchmark measures. With both protocols every result row carries its
``protocol``; selectors without a cluster count give the same fit in both.

Grids: ``n_features`` is one grid of fixed counts; ``[evaluation.grids]``
names several (FSEVAL's ratio grids beside the papers' fixed counts), and the
statistics summarise each method over each grid separately (mean over the
grid's counts, as FSEVAL does). Each fit is run in a process of its own that
is ended after ``fit_timeout`` seconds of CPU time (one BLAS thread: the wall
time on an idle machine; a CPU-time cap does not depend on how many other
jobs share the cores); such a cell is reported as "timed out".

A ``[[datasets]]`` table may set its own ``n_features`` list (UFSA uses 1..7
features on WINE and 100..900 on JAFFE); counts larger than the number of
features are dropped. A published value may be a number, or an inline table
``{ value = 70.22, n_features = 2 }`` when the paper prints each method at its
own feature count (UFSA Table 2).
"""

from __future__ import annotations

import copy
import itertools
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "Experiment",
    "MethodSpec",
    "DatasetSpec",
    "load_experiment",
    "experiment_from_dict",
    "BASELINES",
    "TUNING_MODES",
    "METRICS",
    "PROTOCOLS",
    "grid_counts",
]

#: Names of the baselines present in every comparison.
BASELINES = ("all_features", "random")
#: The two tuning modes.
TUNING_MODES = ("defaults", "best_over_grid")
#: Evaluation metrics, and whether larger is better. "nmi" is normalised by
#: max(H, H') (Cai's MutualInfo.m, the papers'), "nmi_arithmetic" by the
#: arithmetic mean (scikit-learn's default, FSEVAL's).
METRICS = {"acc": True, "nmi": True, "nmi_arithmetic": True, "nn_error": False}
#: Where the selectors' cluster count comes from (see the module docstring).
PROTOCOLS = {"n_classes": "K = number of classes (from the labels; the papers' protocol)",
             "label_free": "K = estimate_n_clusters(X) (no labels)"}
PREPROCESS = ("none", "minmax", "standardize", "l2_rows")
KMEANS_REPORTS = ("mean", "best_objective")
KMEANS_INITS = ("random", "k-means++")

_CLASSES_RE = re.compile(r"^n_classes\s*(?:([+-])\s*(\d+))?$")


def _read_toml(path):
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on Python 3.10 only
        try:
            import tomli as tomllib
        except ImportError as exc:
            raise ImportError(
                "Reading experiment files on Python 3.10 needs the 'tomli' package "
                "(pip install tomli); Python >= 3.11 has tomllib built in."
            ) from exc
    with open(path, "rb") as fh:
        return tomllib.load(fh)


@dataclass
class DatasetSpec:
    name: str
    preprocess: str = "none"
    label: str = ""
    n_features: list | None = None  # overrides [evaluation] n_features for this data set

    def __post_init__(self):
        if self.n_features is not None:
            self.n_features = _as_int_list(self.n_features, f"[[datasets]] {self.name} n_features")
        if self.preprocess not in PREPROCESS:
            raise ValueError(
                f"Data set {self.name!r}: preprocess={self.preprocess!r} not understood, "
                f"valid options are {set(PREPROCESS)}."
            )
        self.label = self.label or self.name


@dataclass
class MethodSpec:
    label: str
    selector: str
    fixed: dict = field(default_factory=dict)
    grid: dict = field(default_factory=dict)

    def settings(self):
        """Parameter dicts: the defaults setting first, then the grid (unresolved)."""
        out = [dict(self.fixed)]
        if self.grid:
            names = sorted(self.grid)
            for values in itertools.product(*(self.grid[n] for n in names)):
                out.append({**self.fixed, **dict(zip(names, values))})
        return out


@dataclass
class Experiment:
    """A validated experiment: the data sets, the methods and the evaluation protocol.

    Built by :func:`load_experiment` from a TOML file or a dict; the fields are the
    file's keys (see the module docstring for the file format).

    Parameters
    ----------
    name : str
        Used in file names.
    datasets : list of DatasetSpec
        The data sets, each with its preprocessing and optional feature counts.
    methods : list of MethodSpec
        The methods: a registered selector with fixed and grid parameters.
    n_features : list of int
        Numbers of selected features to evaluate.
    title : str, default=""
        Shown in the report.
    paper : str, default=""
        Citation of the paper the experiment reproduces.
    description : str, default=""
        Free text for the report.
    kmeans_runs : int, default=20
        k-means repeats per evaluation.
    kmeans_report : {"mean", "best_objective"}, default="mean"
        How the k-means runs are summarised (see
        :func:`ufsel.evaluation.evaluate_clustering`).
    kmeans_init : {"random", "k-means++"}, default="random"
        The k-means start.
    nn_loo : bool, default=True
        Also evaluate the 1-NN leave-one-out error.
    seed : int, default=0
        Seeds k-means and each selector's ``random_state``.
    random_baseline_seeds : int, default=5
        Random subsets drawn for each feature count (the "random" baseline).
    tuning : tuple of str, default=("defaults", "best_over_grid")
        The tuning modes run (:data:`TUNING_MODES`).
    published : list of dict, default=[]
        The paper's printed numbers, compared with the results in the report.
    source_file : str, default=""
        The TOML file the experiment was read from.
    protocols : tuple of str, default=("n_classes",)
        Where the selectors' cluster count comes from (:data:`PROTOCOLS`).
    fit_timeout : float, default=0.0
        CPU seconds allowed per fit (0: no cap).
    grids : dict, default={}
        Named feature-count grids, ``{name: {"counts": [...]}}`` or
        ``{name: {"ratios": [...]}}``.
    metric_names : tuple of str, default=()
        The metrics to report; empty: ACC, NMI and, with ``nn_loo``, the 1-NN error.
    """

    name: str
    datasets: list
    methods: list
    n_features: list
    title: str = ""
    paper: str = ""
    description: str = ""
    kmeans_runs: int = 20
    kmeans_report: str = "mean"
    kmeans_init: str = "random"
    nn_loo: bool = True
    seed: int = 0
    random_baseline_seeds: int = 5
    tuning: tuple = TUNING_MODES
    published: list = field(default_factory=list)
    source_file: str = ""
    protocols: tuple = ("n_classes",)
    fit_timeout: float = 0.0
    grids: dict = field(default_factory=dict)  # name -> {"counts": [...]} or {"ratios": [...]}
    metric_names: tuple = ()

    def to_dict(self):
        """The experiment as a JSON-serialisable dict (written to ``experiment.json``).

        Returns
        -------
        dict
        """
        return {
            "name": self.name, "title": self.title, "paper": self.paper,
            "description": self.description,
            "datasets": [vars(d).copy() for d in self.datasets],
            "methods": [vars(m).copy() for m in self.methods],
            "n_features": list(self.n_features), "kmeans_runs": self.kmeans_runs,
            "kmeans_report": self.kmeans_report, "kmeans_init": self.kmeans_init,
            "nn_loo": self.nn_loo, "seed": self.seed,
            "random_baseline_seeds": self.random_baseline_seeds, "tuning": list(self.tuning),
            "published": copy.deepcopy(self.published), "source_file": self.source_file,
            "protocols": list(self.protocols), "fit_timeout": self.fit_timeout,
            "grids": copy.deepcopy(self.grids), "metrics": self.metrics,
        }

    @property
    def metrics(self):
        """The metrics reported, in :data:`METRICS` order."""
        if self.metric_names:
            return [m for m in METRICS if m in self.metric_names
                    and (m != "nn_error" or self.nn_loo)]
        return ["acc", "nmi"] + (["nn_error"] if self.nn_loo else [])

    def counts_for(self, dataset, d):
        """{grid name: feature counts <= d} for one data set (its own list wins).

        Parameters
        ----------
        dataset : DatasetSpec
            The data set; its own ``n_features`` list wins over the
            experiment's.
        d : int
            Its number of features; larger counts are dropped.
        """
        if dataset.n_features is not None:
            return {"counts": [k for k in dataset.n_features if k <= d]}
        if not self.grids:
            return {"counts": [k for k in self.n_features if k <= d]}
        return {name: grid_counts(g, d) for name, g in self.grids.items()}


def grid_counts(grid, d):
    """Feature counts of one grid on ``d`` features: ``ceil(ratio * d)`` or the counts <= d."""
    if "ratios" in grid:
        # round first: 0.07 * 100 is 7.000000000000001 in binary floating point
        return sorted({max(1, math.ceil(round(r * d, 9))) for r in grid["ratios"]})
    return [k for k in grid["counts"] if k <= d]


def resolve_value(value, n_classes):
    """Replace the ``"n_classes"`` tokens of a parameter value."""
    if isinstance(value, str):
        m = _CLASSES_RE.match(value.strip())
        if m:
            sign, num = m.groups()
            off = 0 if sign is None else (int(num) if sign == "+" else -int(num))
            return max(1, n_classes + off)
    return value


def resolve_params(params, n_classes):
    return {k: resolve_value(v, n_classes) for k, v in params.items()}


def _as_int_list(value, what):
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ValueError(f"{what} must be a non-empty list of positive integers, got {value!r}.")
    out = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{what} must hold positive integers, got {v!r}.")
        out.append(int(v))
    return sorted(set(out))


def _check_keys(table, allowed, where):
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown}, valid options are {sorted(allowed)}.")


def experiment_from_dict(doc, *, source_file=""):
    """Build an :class:`Experiment` from the parsed TOML document ``doc``."""
    doc = copy.deepcopy(doc)
    _check_keys(doc, {"experiment", "evaluation", "datasets", "methods", "published"},
                "experiment file")
    head = doc.get("experiment", {})
    _check_keys(head, {"name", "title", "paper", "description"}, "[experiment]")
    ev = doc.get("evaluation", {})
    _check_keys(ev, {"n_features", "kmeans_runs", "kmeans_report", "kmeans_init", "nn_loo",
                     "seed", "random_baseline_seeds", "tuning", "protocols", "fit_timeout", "grids",
                     "metrics"}, "[evaluation]")
    protocols = ev.get("protocols", ["n_classes"])
    protocols = [protocols] if isinstance(protocols, str) else list(protocols)
    bad = [p for p in protocols if p not in PROTOCOLS]
    if bad or not protocols:
        raise ValueError(f"[evaluation] protocols={protocols!r}: valid options are "
                         f"{list(PROTOCOLS)}.")
    fit_timeout = ev.get("fit_timeout", 0)
    if isinstance(fit_timeout, bool) or not isinstance(fit_timeout, (int, float)) \
            or fit_timeout < 0:
        raise ValueError(f"[evaluation] fit_timeout must be a number of seconds >= 0 (0: no "
                         f"cap), got {fit_timeout!r}.")
    metric_names = ev.get("metrics", [])
    bad = [m for m in metric_names if m not in METRICS]
    if bad:
        raise ValueError(f"[evaluation] metrics {bad} not understood, valid options are "
                         f"{list(METRICS)}.")
    grids = {}
    for gname, g in ev.get("grids", {}).items():
        if not isinstance(g, dict) or len(set(g) & {"counts", "ratios"}) != 1 or \
                set(g) - {"counts", "ratios"}:
            raise ValueError(f"[evaluation.grids] {gname}: give either counts = [...] or "
                             f"ratios = [...], got {g!r}.")
        if "counts" in g:
            grids[gname] = {"counts": _as_int_list(g["counts"], f"grid {gname} counts")}
        else:
            r = g["ratios"]
            if not isinstance(r, list) or not r or any(
                    isinstance(v, bool) or not isinstance(v, (int, float)) or not 0 < v <= 1
                    for v in r):
                raise ValueError(f"[evaluation.grids] {gname}: ratios must be numbers in "
                                 f"(0, 1], got {r!r}.")
            grids[gname] = {"ratios": sorted(set(float(v) for v in r))}
    name = head.get("name") or (Path(source_file).stem if source_file else "experiment")
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", name):
        raise ValueError(f"[experiment] name {name!r} must use letters, digits, '_', '-', '.'.")

    datasets = []
    for d in doc.get("datasets", []):
        if isinstance(d, str):
            datasets.append(DatasetSpec(d))
        elif isinstance(d, dict):
            _check_keys(d, {"name", "preprocess", "label", "n_features"}, "[[datasets]]")
            if "name" not in d:
                raise ValueError("[[datasets]] entries need a 'name'.")
            datasets.append(DatasetSpec(**d))
        else:
            raise ValueError(f"datasets entries must be names or tables, got {d!r}.")
    if not datasets:
        raise ValueError("The experiment names no data set (datasets = [...]).")
    labels = [d.label for d in datasets]
    if len(set(labels)) != len(labels):
        raise ValueError(f"Data set labels must be unique, got {labels}.")

    methods = []
    for label, m in doc.get("methods", {}).items():
        m = m or {}
        _check_keys(m, {"selector", "fixed", "grid"}, f"[methods.{label}]")
        if label.lower() in BASELINES:
            raise ValueError(f"[methods.{label}]: {BASELINES} are added automatically.")
        grid = m.get("grid", {})
        for k, v in grid.items():
            if not isinstance(v, list) or not v:
                raise ValueError(f"[methods.{label}] grid.{k} must be a non-empty list, got {v!r}.")
        methods.append(MethodSpec(label=label, selector=str(m.get("selector", label)).lower(),
                                  fixed=dict(m.get("fixed", {})), grid=dict(grid)))

    tuning = ev.get("tuning", list(TUNING_MODES))
    tuning = [tuning] if isinstance(tuning, str) else list(tuning)
    bad = [t for t in tuning if t not in TUNING_MODES]
    if bad or not tuning:
        raise ValueError(f"[evaluation] tuning={tuning!r}: valid options are {list(TUNING_MODES)}.")
    report = ev.get("kmeans_report", "mean")
    if report not in KMEANS_REPORTS:
        raise ValueError(f"[evaluation] kmeans_report={report!r}, valid options are {KMEANS_REPORTS}.")
    kmeans_init = ev.get("kmeans_init", "random")
    if kmeans_init not in KMEANS_INITS:
        raise ValueError(f"[evaluation] kmeans_init={kmeans_init!r}, valid options are "
                         f"{KMEANS_INITS}.")
    kmeans_runs = int(ev.get("kmeans_runs", 20))
    n_random = int(ev.get("random_baseline_seeds", 5))
    if kmeans_runs < 1 or n_random < 1:
        raise ValueError("[evaluation] kmeans_runs and random_baseline_seeds must be >= 1.")

    published = []
    for p in doc.get("published", []):
        _check_keys(p, {"source", "metric", "n_features", "scale", "tuning", "values", "note"},
                    "[[published]]")
        if p.get("metric") not in METRICS:
            raise ValueError(f"[[published]] metric={p.get('metric')!r}, valid options are "
                             f"{sorted(METRICS)}.")
        nf = p.get("n_features")
        if not (nf is None or nf == "all" or (isinstance(nf, int) and nf >= 1)):
            raise ValueError(f"[[published]] n_features must be a positive int or 'all', got {nf!r}.")
        for ds_values in p.get("values", {}).values():
            for method, v in ds_values.items():
                own = v.get("n_features") if isinstance(v, dict) else None
                if isinstance(v, dict) and "value" not in v:
                    raise ValueError(f"[[published]] {method}: an inline table needs 'value'.")
                if nf is None and own is None and method != "all_features":
                    raise ValueError(f"[[published]] {p.get('source')}: {method} has no "
                                     "n_features (set it on the entry or on the value).")
        p.setdefault("scale", 1)
        p.setdefault("tuning", "best_over_grid")
        p.setdefault("note", "")
        p.setdefault("source", "paper")
        if p["tuning"] not in TUNING_MODES:
            raise ValueError(f"[[published]] tuning={p['tuning']!r}, valid options are {TUNING_MODES}.")
        published.append(p)

    return Experiment(
        name=name, title=head.get("title", name), paper=head.get("paper", ""),
        description=head.get("description", ""), datasets=datasets, methods=methods,
        n_features=_as_int_list(ev.get("n_features", [10, 20, 50]), "[evaluation] n_features"),
        kmeans_runs=kmeans_runs, kmeans_report=report, kmeans_init=kmeans_init,
        nn_loo=bool(ev.get("nn_loo", True)),
        seed=int(ev.get("seed", 0)), random_baseline_seeds=n_random, tuning=tuple(tuning),
        published=published, source_file=str(source_file), protocols=tuple(protocols),
        fit_timeout=float(fit_timeout), grids=grids, metric_names=tuple(metric_names),
    )


def load_experiment(path_or_dict):
    """Read an experiment file (TOML) or accept an already parsed dict / Experiment.

    Parameters
    ----------
    path_or_dict : str, path, dict or Experiment
        A TOML file, its parsed content, or an Experiment (returned as it is).
    """
    if isinstance(path_or_dict, Experiment):
        return path_or_dict
    if isinstance(path_or_dict, dict):
        return experiment_from_dict(path_or_dict)
    path = Path(path_or_dict)
    if not path.is_file():
        raise FileNotFoundError(f"No experiment file at {path}.")
    try:
        doc = _read_toml(path)
    except ValueError as exc:  # tomllib.TOMLDecodeError subclasses ValueError
        raise ValueError(f"{path}: not a valid TOML file ({exc}).") from exc
    return experiment_from_dict(doc, source_file=str(path))
