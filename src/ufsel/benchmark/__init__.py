"""The experiment system: rerun the papers' experiments, cached, resumable and parallel.

``ufsel.benchmark.run(experiment, out_dir, n_jobs=...)`` (and ``ufsel bench``)
runs an experiment file (``experiments/*.toml``): data sets x methods x
numbers of selected features x parameter grids, evaluated by repeated k-means
(ACC, NMI) and the 1-NN leave-one-out error, beside the all-features and
random-subset baselines, in both tuning modes ("defaults" and the papers'
"best over the grid, judged with the labels"). ``ufsel.benchmark.write_report``
(and ``ufsel report``) turns a results folder into one static HTML page.

Figures live in :mod:`ufsel.benchmark.plot`, the only module importing
matplotlib (imported lazily).
"""

from ._experiment import BASELINES, METRICS, TUNING_MODES, Experiment, load_experiment
from ._report import write_report
from ._runner import RunResult, format_summary, run

__all__ = [
    "BASELINES",
    "Experiment",
    "METRICS",
    "RunResult",
    "TUNING_MODES",
    "format_summary",
    "load_experiment",
    "run",
    "write_report",
]
