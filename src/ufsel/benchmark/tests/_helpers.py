"""Selectors used only by the benchmark tests (a slow one, a failing one)."""

import importlib.util
import time
from pathlib import Path

import numpy as np

from ufsel.base import BaseSelector
from ufsel.benchmark._tables import read_csv

#: Columns that hold measured times (they differ between two runs).
TIMING = {"fit_time_s", "fit_cpu_s", "eval_time_s", "grid_fit_time_total_s"}
#: The repository root (experiments/, benchmarks/), when running from a checkout.
REPO = Path(__file__).resolve().parents[4]


def load_benchmark_script(name):
    """Import ``benchmarks/<name>.py`` of the checkout as a module, as ``python
    benchmarks/<name>.py`` would see it (its folder first on ``sys.path``); ``name`` may
    name a subfolder, e.g. ``"tools/merge_leaderboard"``. Skips the test when the checkout
    has no such file (e.g. an installed wheel)."""
    import sys

    import pytest

    path = REPO / "benchmarks" / f"{name}.py"
    if not path.is_file():
        pytest.skip(f"benchmarks/{name}.py is not in this checkout")
    module_name = "benchmarks_" + name.replace("/", "_")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module          # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[module_name]
        raise
    finally:
        sys.path.remove(folder)
    return module


def quiet(**kw):
    """run() options for tests: no progress bar, no summary."""
    return {"progress": False, "verbose": False, **kw}


def rows_without_timing(path):
    return [{k: v for k, v in r.items() if k not in TIMING} for r in read_csv(path)]


class SlowVariance(BaseSelector):
    """Variance ranking after sleeping ``delay`` seconds (to kill a run mid-way)."""

    _parameter_constraints = {**BaseSelector._parameter_constraints, "delay": [float, int],
                              "power": [float, int]}

    def __init__(self, n_features_to_select=None, *, delay=0.2, power=1.0):
        super().__init__(n_features_to_select=n_features_to_select)
        self.delay = delay
        self.power = power

    def _fit(self, X):
        time.sleep(self.delay)
        self.objective_ = np.array([3.0, 2.0, 1.5, 1.25])
        self.n_iter_ = 4
        return np.var(X, axis=0) ** self.power + np.arange(X.shape[1]) * 1e-9 * self.power


class FailingSelector(BaseSelector):
    """Raises on every fit."""

    def _fit(self, X):
        raise RuntimeError("this selector always fails (test)")


EXPERIMENT = {
    "experiment": {"name": "tiny", "title": "tiny test experiment"},
    "datasets": ["wine"],
    "evaluation": {"n_features": [2, 4, 6], "kmeans_runs": 3, "random_baseline_seeds": 2,
                   "seed": 0, "nn_loo": True},
    "methods": {
        "maxvariance": {},
        "slowvariance": {"fixed": {"delay": 0.0}, "grid": {"power": [1.0, 0.5]}},
        "mcfs": {"fixed": {"n_clusters": "n_classes"}, "grid": {"n_neighbors": [3, 5]}},
    },
    "published": [{"source": "UFSA Table 2", "metric": "acc", "n_features": 2, "scale": 100,
                   "values": {"wine": {"maxvariance": 70.22, "all_features": 70.22}}}],
}


def register_test_selectors(registry):
    registry["slowvariance"] = SlowVariance
    registry["failing"] = FailingSelector


def kill_target(out_dir, delay):
    """Entry point of the subprocess that the kill test sends SIGKILL."""
    import copy

    from ufsel._registry import SELECTORS
    from ufsel.benchmark import run

    register_test_selectors(SELECTORS)
    exp = copy.deepcopy(EXPERIMENT)
    exp["methods"]["slowvariance"]["fixed"]["delay"] = delay
    run(exp, out_dir, n_jobs=1, progress=False, plots=False, report=False, verbose=False)


if __name__ == "__main__":
    import sys

    # import by module name, so that the classes' qualified names (part of the
    # cache keys) are the same as in the test process, not "__main__.*"
    from ufsel.benchmark.tests._helpers import kill_target as target

    target(sys.argv[1], float(sys.argv[2]))
