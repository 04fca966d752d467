"""``verbose``: one progress line per iteration from the shared objective bookkeeping."""

import re
import warnings

import numpy as np
import pytest

from ufsel._iterate import ObjectiveTracker
from ufsel._registry import SELECTORS
from ufsel.base import NumericalError
from ufsel.datasets import make_planted_clusters

LINE = re.compile(r"^(\w+): iteration +(\d+)  objective (\S+)  relative change +(\S+)  "
                  r"elapsed (\d+\.\d\d) s$")

ITERATIVE = sorted(name for name, cls in SELECTORS.items() if "max_iter" in cls().get_params())


def _lines(text):
    return [LINE.match(line) for line in text.splitlines() if line.strip()]


def test_tracker_prints_one_line_per_iteration(capsys):
    tracker = ObjectiveTracker("Demo", 10, 1e-3, verbose=1)
    for value in (10.0, 5.0, 4.9999):
        tracker.append(value)
    lines = _lines(capsys.readouterr().out)
    assert all(lines) and len(lines) == 3
    assert [int(m[2]) for m in lines] == [1, 2, 3]
    assert [float(m[3]) for m in lines] == [10.0, 5.0, 4.9999]
    assert lines[0][4] == "-"
    assert float(lines[1][4]) == pytest.approx(0.5, rel=1e-3)
    assert float(lines[2][4]) == pytest.approx(2e-5, rel=1e-3)
    assert float(lines[0][5]) <= float(lines[2][5])
    assert tracker.converged


def test_quiet_by_default(capsys):
    tracker = ObjectiveTracker("Demo", 10, 1e-3)
    for value in (3.0, 2.0):
        tracker.append(value)
    assert capsys.readouterr().out == ""


def test_tracker_without_tol_and_with_advice():
    """tol=None never converges (RNE's max_iter iterations); ``advice`` ends the error."""
    tracker = ObjectiveTracker("Demo", 10, None, advice="Change alpha.")
    assert not tracker.append(4.0) and not tracker.append(4.0)
    assert tracker.last_change == 0.0 and tracker.values == [4.0, 4.0]
    with pytest.raises(NumericalError, match=r"^Demo: the objective became nan at iteration 3\. "
                                             r"Change alpha\.$"):
        tracker.append(np.nan)


def test_every_iterative_selector_takes_verbose():
    assert len(ITERATIVE) >= 12
    for name in ITERATIVE:
        assert "verbose" in SELECTORS[name]().get_params(), name
        assert SELECTORS[name]().verbose == 0


@pytest.mark.parametrize("name", ITERATIVE)
def test_selector_verbose_lines_match_iterations(name, capsys):
    X, _, _ = make_planted_clusters(n_samples=80, random_state=0)
    cls = SELECTORS[name]
    params = {"max_iter": 3, "verbose": 1}
    if "n_clusters" in cls().get_params():
        params["n_clusters"] = 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = cls(4, **params).fit(X)
    lines = _lines(capsys.readouterr().out)
    assert lines and all(lines), name
    assert {m[1] for m in lines} == {cls.__name__}
    assert [int(m[2]) for m in lines] == list(range(1, len(lines) + 1))
    assert len(lines) == len(np.atleast_1d(sel.objective_))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cls(4, **{**params, "verbose": 0}).fit(X)
    assert capsys.readouterr().out == ""
