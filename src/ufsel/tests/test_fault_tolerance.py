"""Faults during the work: a Dask worker killed mid-fit, ``ufsel select`` killed mid-write.

(A benchmark run killed with SIGKILL and rerun is covered by
``ufsel/benchmark/tests/test_benchmark_resume.py``.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from ufsel import LaplacianScore
from ufsel.datasets import make_planted_dask, read_data


@pytest.mark.slow
def test_dask_worker_killed_mid_fit_gives_the_same_ranking():
    """A worker process killed by SIGKILL while the fit computes: the scheduler recomputes
    its tasks elsewhere (each chunk is generated from its own seed), and the ranking is
    that of an undisturbed fit."""
    distributed = pytest.importorskip("distributed")
    X, _, _ = make_planted_dask(60_000, 12, 3, n_clusters=3, chunks=5_000, random_state=0)
    params = {"n_features_to_select": 3, "graph": "anchor", "n_anchors": 50, "random_state": 0}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        clean = LaplacianScore(**params).fit(X).ranking_
        pids = client.run(os.getpid)
        victim = sorted(pids)[0]
        killed = threading.Event()

        def kill_when_busy():
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                if client.processing().get(victim):  # the victim holds a task now
                    os.kill(pids[victim], signal.SIGKILL)
                    killed.set()
                    return
                time.sleep(0.001)

        killer = threading.Thread(target=kill_when_busy, daemon=True)
        killer.start()
        disturbed = LaplacianScore(**params).fit(X).ranking_
        killer.join(timeout=5)
    assert killed.is_set(), "the worker was not killed while the fit computed"
    np.testing.assert_array_equal(disturbed, clean)


def _select_argv(data, out):
    return [sys.executable, "-m", "ufsel.cli", "select", "--data", str(data), "--method",
            "maxvariance", "--n-features", "150", "--out", str(out / "ranking.csv"),
            "--transform-out", str(out / "selected.csv")]


@pytest.mark.slow
def test_select_killed_mid_write_leaves_no_half_written_file(tmp_path):
    """SIGKILL while ``--transform-out`` is written: the file is either absent or whole
    (written to a temporary file and renamed), never half-written; a rerun completes it."""
    data = tmp_path / "x.csv"
    np.savetxt(data, np.random.RandomState(0).rand(6000, 200), delimiter=",", fmt="%.17g")
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(Path(__file__).resolve().parents[2])] + sys.path)}
    proc = subprocess.Popen(_select_argv(data, out), env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    killed = False
    while proc.poll() is None and time.monotonic() < deadline:
        if out.is_dir() and any(p.name.startswith(".selected.csv.") for p in out.iterdir()):
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
        time.sleep(0.001)
    proc.wait(timeout=30)
    proc.stderr.close()
    assert killed, "the write finished before the kill"
    assert proc.returncode == -signal.SIGKILL
    assert not (out / "selected.csv").exists()

    done = subprocess.run(_select_argv(data, out), env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert read_data(out / "selected.csv").data.shape == (6000, 150)
