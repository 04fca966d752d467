"""The wheel built from this tree installs into a fresh venv and works outside it.

Builds with ``python -m build --wheel``, creates a venv without system site-packages,
installs the wheel with pip (its dependencies from the package index or pip's cache),
and runs ``ufsel select`` on a CSV file in a temporary folder outside the source tree. Slow (about a
minute): marked ``wheel``, excluded from ``make test``, run by ``make wheel-check`` and
``.ci/run``.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import venv
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.wheel,
    pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(),
                       reason="no pyproject.toml (not a source checkout)"),
]


def _run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{cmd} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return proc


@pytest.mark.timeout(900)
def test_wheel_installs_and_selects_outside_the_tree(tmp_path):
    pytest.importorskip("build")
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(ROOT)],
         timeout=600)
    wheels = list(dist.glob("ufsel-*.whl"))
    assert len(wheels) == 1, wheels

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False, clear=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / "python"
    _run([str(python), "-m", "pip", "install", "-q", str(wheels[0])], timeout=600)

    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "UFSEL_DATA")}
    where = _run([str(python), "-c", "import ufsel; print(ufsel.__file__)"], cwd=work,
                 env=env).stdout.strip()
    assert str(env_dir) in where and str(ROOT / "src") not in where, where

    # three blobs in features 0-1, noise in 2-5, as a CSV with a header of feature names
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 30)
    X = rng.normal(size=(90, 6))
    X[:, :2] += 6.0 * y[:, None]
    np.savetxt(work / "blobs.csv", X, delimiter=",", comments="",
               header=",".join(f"f{j}" for j in range(6)))
    out = _run([str(bindir / "ufsel"), "select", "--method", "laplacianscore",
                "--data", "blobs.csv", "--n-features", "2", "--out", "ranking.csv"],
               cwd=work, env=env, timeout=300)
    assert "2 of 6 features selected" in out.stdout, out.stdout
    with open(work / "ranking.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert sorted(r["name"] for r in rows[:2]) == ["f0", "f1"]
    assert sum(r["selected"] == "True" for r in rows) == 2
