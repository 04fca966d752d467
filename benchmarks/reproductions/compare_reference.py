"""Time and agreement of ufsel against the authors' MATLAB code (run in GNU Octave) and against
an older ufsel.

For each selector with a public reference implementation and each data set,
one fit of ufsel and one run of the reference with the same parameters:

- ufsel time: wall time of ``fit`` (graph, initialisation and iterations),
  measured in a fresh subprocess after one warm-up fit (two iterations) on the first 60 rows
  (imports and one-time initialisation excluded, as Octave's start-up is);
- reference time: ``tic``/``toc`` inside Octave around the same pipeline
  (graph, initialisation, iterations; Octave's start-up excluded);
- ratio: ufsel / reference (<= 1 means ufsel is faster);
- agreement: the overlap of the two top-50 feature sets (|A & B| / 50) and,
  where both expose it, the final objective of each;
- with ``--baseline-src PATH``: the same fit with the ufsel found at PATH
  (``PYTHONPATH=PATH``, e.g. ``src`` of an older checkout) and the ratio
  new / old. Parameters the old version does not know are dropped (listed in
  the notes column).

The reference code is NOT fetched: place it in a folder and point
``UFSEL_REFERENCE_CODE`` at it (see ``docs/guide/fidelity.md``). Files are
found by name anywhere below that folder, so its layout is free; expected:
csliangdu/FSASL (``fs_unsup_rufs.m``, ``localLearnMx_KRR.m``, ...),
farhadabedinzadeh/AutoUFSTool (``UFSs/LS``, ``UFSs/SPEC``, ``UFSs/MCFS``,
``UFSs/RNE``), Lei Shi's ``RSFS.m`` and the SPCAFS release
(``InterationW_SPCA.m``). Stand-ins for three functions Octave lacks
(``wthresh``, ``subplus``, ``randsample``) and one documented patch are
written to a temporary folder at run time: the SPCAFS release's ``St = X*H*X'`` is symmetrised (``(St +
St')/2``) because Octave's ``eig`` returns complex pairs for the slightly
asymmetric product, which sorts the eigenvalues by modulus.

Without Octave or without the folder (and without ``--baseline-src``) the
script prints one line and exits with status 0.

Usage::

    UFSEL_DATA=/work/shared/data UFSEL_REFERENCE_CODE=/work/refcode \\
        .venv/bin/python benchmarks/reproductions/compare_reference.py \\
        [--methods rufs spcafs] [--datasets orl jaffe] [--timeout 600] [--threads 1] \\
        [--baseline-src ../old/src] [--out benchmarks/results/reference_comparison.md]

The machine should be otherwise idle: every cell is a single fit, and the
header of the output records the load (``uptime``) at start and end.
"""

from __future__ import annotations

import argparse
import datetime
import inspect
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

TOP = 50
REPO = Path(__file__).resolve().parents[2]
DATASETS = ["orl", "coil20", "jaffe"]

#: Octave stand-ins for functions of MATLAB toolboxes that Octave lacks.
SHIMS = {
    "wthresh.m": "function y = wthresh(x, sorh, t)\n"
                 "if sorh == 's', y = sign(x) .* max(abs(x) - t, 0); else, y = x .* (abs(x) > t); end\n"
                 "end\n",
    "subplus.m": "function y = subplus(x)\ny = max(x, 0);\nend\n",
    "randsample.m": "function y = randsample(n, k, replace)\n"
                    "if nargin > 2 && replace, y = randi(n, k, 1); else, y = randperm(n, k)'; end\n"
                    "end\n",
}


@dataclass
class Method:
    """One row family: the ufsel estimator and the Octave pipeline it is compared with."""

    name: str
    ufsel_class: str
    ufsel_params: dict
    needs: list  # reference files (by name) whose folders go on Octave's path
    octave: str | None  # body; sees X (n x d), c, TOP; sets idx (1-based ranking), maybe obj;
    #                     None: no reference code
    note: str = ""
    patch: dict = field(default_factory=dict)  # file name -> (old, new) text patch


def _c(params, data):
    """Fill ``"c"`` / ``"c-1"`` placeholders with the data set's class count, and a dict
    value (data set name -> value) with the data set's entry."""
    c = data["c"]
    params = {k: (v.get(data["name"], v.get("other")) if isinstance(v, dict) else v)
              for k, v in params.items()}
    return {k: (c if v == "c" else c - 1 if v == "c-1" else v) for k, v in params.items()}


#: Outer iterations the FSASL RUFS reference runs in this setting before its own stopping
#: test (projected gradient norm <= epsilon = 1e-2 times the initial one) ends it, counted
#: with a copy of ``fs_unsup_rufs.m`` that prints its iteration counter ("other": data
#: sets where it was not counted, which keep the FSASL setting's MaxIter).
_RUFS_REFERENCE_ITERATIONS = {"orl": 1, "jaffe": 1, "coil20": 2, "other": 20}


#: One reference run serves two ufsel settings (RUFS's local matrix, RNE's residual).
_RUFS_PARAMS = dict(n_features_to_select=TOP, n_clusters="c", nu=1.0, alpha=1.0, beta=1.0,
                    max_iter=20)
_RUFS_FILES = ["fs_unsup_rufs.m", "localLearnMx_KRR.m"]
_RUFS_OCTAVE = (
    "rand('twister', 5489); lab = litekmeans(X, c, 'Replicates', 10);\n"
    "G0 = full(sparse(1:size(X, 1), lab, 1, size(X, 1), c));\n"
    "L = localLearnMx_KRR(X, struct('nNeighbors', 5, 'rLambda', 0.1));\n"
    "W = fs_unsup_rufs(X, L, G0, struct('nu', 1, 'alpha', 1, 'beta', 1, 'MaxIter', 20, "
    "'epsilon', 1e-2, 'verbose', 0));\n[~, idx] = sort(sum(W .^ 2, 2), 'descend');")
_RNE_PARAMS = dict(n_features_to_select=TOP, n_neighbors=5, random_state=0)
_RNE_OCTAVE = "rand('seed', 23); [idx, obj] = RNE_obj(X, TOP, 5);"

METHODS = [
    Method("laplacian_score", "LaplacianScore",
           dict(n_features_to_select=TOP, n_neighbors=5, weight="heat", t="mean"),
           ["LaplacianScore.m", "EuDist2.m"],
           "W = constructW(X, struct('k', 5, 'WeightMode', 'HeatKernel'));\n"
           "s = LaplacianScore(X, W); [~, idx] = sort(s, 'descend');",
           "AutoUFSTool LS: Cai's constructW (k=5, heat, t=mean distance)"),
    Method("spec_phi1", "SPEC", dict(n_features_to_select=TOP, scoring="phi1", n_neighbors=5),
           ["fsSpectrum.m", "LaplacianScore.m", "EuDist2.m"],
           "W = constructW(X, struct('k', 5, 'WeightMode', 'HeatKernel'));\n"
           "s = fsSpectrum(full(W), X, -1); [~, idx] = sort(s, 'ascend');",
           "fsSpectrum style -1"),
    Method("spec_phi2", "SPEC", dict(n_features_to_select=TOP, scoring="phi2", n_neighbors=5),
           ["fsSpectrum.m", "LaplacianScore.m", "EuDist2.m"],
           "W = constructW(X, struct('k', 5, 'WeightMode', 'HeatKernel'));\n"
           "s = fsSpectrum(full(W), X, 0); [~, idx] = sort(s, 'ascend');",
           "fsSpectrum style 0"),
    Method("mcfs", "MCFS",
           dict(n_features_to_select=TOP, n_clusters="c", n_neighbors=10, weight="heat"),
           ["MCFS_p.m"],
           "F = MCFS_p(X, TOP, struct('k', 10, 'nUseEigenfunction', c)); idx = F{1};",
           "k=10 (connected graph), heat kernel, c eigenfunctions"),
    Method("udfs", "UDFS",
           dict(n_features_to_select=TOP, n_clusters="c", n_neighbors=5, gamma=1.0, reg=1000.0,
                max_iter=20),
           ["LocalDisAna.m", "fs_unsup_udfs.m"],
           "L = LocalDisAna(X', struct('k', 5, 'lamda', 1000)); A = X' * L * X;\n"
           "[W, obj] = fs_unsup_udfs(A, c, 1.0); [~, idx] = sort(sum(W .^ 2, 2), 'descend');",
           "gamma=1, lambda=1000, 20 iterations (reference: fixed 20)"),
    Method("ndfs", "NDFS",
           dict(n_features_to_select=TOP, n_clusters="c", alpha=1.0, beta=1.0, gamma=1e8,
                max_iter=100),
           ["fs_unsup_ndfs.m"],
           "p = struct('k', 5, 'weightMode', 'HeatKernel', 't', mean(mean(EuDist2(X))), "
           "'maxiter', 100, 'alpha', 1, 'beta', 1, 'gamma', 1e8);\n"
           "idx = fs_unsup_ndfs(X, c, p);",
           "alpha=beta=1, gamma=1e8; reference runs 100 fixed iterations"),
    Method("jelsr", "JELSR",
           dict(n_features_to_select=TOP, n_clusters="c", alpha=1.0, beta=1.0, embedding="lle",
                max_iter=20),
           ["fs_unsup_jelsr.m", "computeLocalStructure.m"],
           "[~, S] = computeLocalStructure(X, 'lle', 5);\n"
           "[W, ~, obj] = fs_unsup_jelsr(X, S, c, 1, 1); [~, idx] = sort(sum(W .^ 2, 2), 'descend');",
           "LLE graph k=5, alpha=beta=1, 20 iterations"),
    Method("rufs", "RUFS", _RUFS_PARAMS, _RUFS_FILES, _RUFS_OCTAVE,
           "FSASL setup (MaxIter 20, epsilon 1e-2); ufsel's default heat-kernel local matrix"),
    Method("rufs_affinity", "RUFS", {**_RUFS_PARAMS, "local_kernel": "affinity"}, _RUFS_FILES,
           _RUFS_OCTAVE, "as rufs, ufsel with local_kernel='affinity' (FSASL's local matrix)"),
    Method("rufs_matched", "RUFS", {**_RUFS_PARAMS, "max_iter": _RUFS_REFERENCE_ITERATIONS},
           _RUFS_FILES, _RUFS_OCTAVE,
           "as rufs, ufsel stopped after as many outer iterations as the reference runs here "
           "(ORL, JAFFE 1; COIL20 2: its gradient test at epsilon 1e-2)"),
    Method("rufs_affinity_matched", "RUFS",
           {**_RUFS_PARAMS, "local_kernel": "affinity", "max_iter": _RUFS_REFERENCE_ITERATIONS},
           _RUFS_FILES, _RUFS_OCTAVE, "as rufs_affinity, with rufs_matched's iteration counts"),
    Method("rsfs", "RSFS",
           dict(n_features_to_select=TOP, n_clusters="c", alpha=1.0, beta=1.0, gamma=1.0, nu=1e8,
                graph="heat", f_update="sqrt", max_iter=20, tol=1e-3),
           ["RSFS.m", "fs_unsup_rufs.m"],
           "n = size(X, 1); S = constructW(X); S = spdiags(1 ./ sum(S, 2), 0, n, n) * S;\n"
           "L = full(spdiags(sum(S + S', 2), 0, n, n) - S - S');\n"
           "[V, E] = eig((L + L') / 2); [~, o] = sort(diag(E)); eY = V(:, o(1:c));\n"
           "rand('twister', 5489); lab = litekmeans(eY, c, 'Replicates', 20);\n"
           "Y = full(sparse(1:n, lab, 1, n, c));\n"
           "W = RSFS(X, L, zeros(n, c), Y, 1, 1, 1, 20); [~, idx] = sort(sum(W .^ 2, 2), 'descend');",
           "released driver's graph; eigY stand-in: c smallest eigenvectors of L"),
    Method("spcafs", "SPCAFS",
           dict(n_features_to_select=TOP, n_components="c-1", gamma=1e4, solver="dense"),
           ["InterationW_SPCA.m"],
           "[W, obj] = InterationW_SPCA(X', 1e4, c - 1); [~, idx] = sort(sum(W .^ 2, 2), 'descend');",
           "gamma=1e4, m=c-1; St symmetrised (see module docstring)",
           patch={"InterationW_SPCA.m": ("St = X*H*X';", "St = X*H*X'; St = (St + St') / 2;")}),
    Method("rne", "RNE", _RNE_PARAMS, ["RNE_obj.m"], _RNE_OCTAVE,
           "m=50, K=5; random starts differ"),
    Method("rne_transposed", "RNE", {**_RNE_PARAMS, "residual": "transposed"}, ["RNE_obj.m"],
           _RNE_OCTAVE, "ufsel residual='transposed' (the reference's (I - W^T) X)"),
]

#: Selectors without public reference code: timed against ufsel's previous version
#: (``--baseline-src``) only, at their defaults with n_clusters = c where they have one.
NO_REFERENCE = ["MaxVariance", "EVSC", "EUFS", "QAlpha", "DGUFS", "SOGFS", "LGDFS", "UFSA"]
METHODS += [Method(cls.lower(), cls, dict(n_features_to_select=TOP, n_clusters="c"), [], None,
                   "no public reference code: against the previous version only")
            for cls in NO_REFERENCE]
BY_NAME = {m.name: m for m in METHODS}


# ------------------------------------------------------------------ worker
def worker(spec_path):
    """Fit one ufsel estimator (the ufsel on PYTHONPATH) and write time, selection, objective."""
    import scipy.io

    spec = json.loads(Path(spec_path).read_text())
    import ufsel

    mat = scipy.io.loadmat(spec["data"])
    X = np.asarray(mat["X"], dtype=np.float64)
    cls = getattr(ufsel, spec["class"])
    accepted = inspect.signature(cls.__init__).parameters
    params = {k: v for k, v in spec["params"].items() if k in accepted}
    if "random_state" in accepted:  # every run seeded: the repeats of a cell are one fit
        params.setdefault("random_state", 0)
    dropped = sorted(set(spec["params"]) - set(params))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # Warm-up on a slice: Python imports and one-time initialisation (scikit-learn's
        # lazily imported kernels, threadpoolctl's library scan) stay out of the timing, as
        # Octave's start-up stays out of the reference's.
        # Two iterations are enough for that (a full fit of the slice can take minutes:
        # UFSA with 40 clusters on 60 samples).
        warm = dict(params, **({"max_iter": 2} if "max_iter" in accepted else {}))
        try:
            cls(**warm).fit(X[:min(X.shape[0], 60)])
        except Exception:  # noqa: BLE001 - a slice too small for some parameters: no warm-up
            pass
        # Best of up to ``repeats`` fits while their total stays within ``budget`` seconds
        # (the reference side does the same): sub-second fits vary by tens of percent
        # from one fit to the next, longer ones are fitted once.
        dt, spent = np.inf, 0.0
        for _ in range(spec.get("repeats", 1)):
            est = cls(**params)
            t0 = time.perf_counter()
            est.fit(X)
            one = time.perf_counter() - t0
            dt, spent = min(dt, one), spent + one
            if spent > spec.get("budget", 0.0):
                break
    obj = getattr(est, "objective_", None)
    obj = float(np.asarray(obj)[-1]) if obj is not None and len(obj) else None
    out = dict(time=dt, top=np.flatnonzero(est.get_support()).tolist(), objective=obj,
               n_iter=getattr(est, "n_iter_", None), dropped=dropped,
               version=getattr(ufsel, "__version__", "?"))
    Path(spec["out"]).write_text(json.dumps(out))


def _env(threads, pythonpath=None):
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = str(threads)
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    return env


def run_ufsel(method, data, tmp, src, threads, timeout, tag, repeats=1, budget=0.0):
    spec = dict(data=str(data["path"]), out=str(tmp / f"{tag}_{method.name}_{data['name']}.json"),
                repeats=repeats, budget=budget,
                **{"class": method.ufsel_class, "params": _c(method.ufsel_params, data)})
    spec_path = tmp / f"spec_{tag}_{method.name}_{data['name']}.json"
    spec_path.write_text(json.dumps(spec))
    try:
        proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker",
                               str(spec_path)], env=_env(threads, src), capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error=f"timeout {timeout}s")
    if proc.returncode != 0:
        return dict(error=(proc.stderr.strip().splitlines() or ["failed"])[-1][:120])
    return json.loads(Path(spec["out"]).read_text())


# ---------------------------------------------------------------- reference
def find_reference_dirs(root):
    """File name -> folder, for every .m file below root (first found wins, sorted walk)."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".m"):
                found.setdefault(f, Path(dirpath))
    return found


def run_octave(method, data, tmp, files, threads, timeout, repeats=1, budget=0.0):
    if method.octave is None:
        return dict(error="no reference code")
    missing = [f for f in method.needs if f not in files]
    if missing:
        return dict(error=f"reference file {missing[0]} not found")
    work = tmp / f"oct_{method.name}_{data['name']}"
    work.mkdir()
    for name, text in SHIMS.items():
        (work / name).write_text(text)
    for fname, (old, new) in method.patch.items():
        text = (files[fname] / fname).read_text(errors="replace")
        if old not in text:
            return dict(error=f"patch for {fname} does not apply")
        (work / fname).write_text(text.replace(old, new, 1))
    dirs = []
    for f in method.needs:
        if files[f] not in dirs:
            dirs.append(files[f])
    out = work / "out.mat"
    # Later addpath calls go first on the path: add in reverse so needs[0]'s folder wins.
    path_cmds = "".join(f"addpath('{d}');\n" for d in reversed(dirs)) + f"addpath('{work}');\n"
    script = (f"{path_cmds}warning('off', 'all');\nload('{data['path']}');\nc = double(c); "
              f"TOP = {TOP};\nobj = [];\nt = inf; spent = 0;\n"
              f"for rep = 1:{int(repeats)}\ntic;\n{method.octave}\none = toc; t = min(t, one); "
              f"spent = spent + one;\nif spent > {float(budget)!r}, break; end\nend\n"
              f"idx = double(idx(:)'); obj = double(obj(:)');\n"
              f"save('-v7', '{out}', 'idx', 't', 'obj');\n")
    (work / "run_reference.m").write_text(script)
    try:
        proc = subprocess.run(["octave-cli", "--norc", "--no-history", "--quiet",
                               str(work / "run_reference.m")], cwd=work, env=_env(threads),
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(error=f"timeout {timeout}s")
    if proc.returncode != 0 or not out.exists():
        err = [ln for ln in proc.stderr.splitlines() if "error" in ln.lower()] or ["failed"]
        return dict(error=err[0][:120])
    import scipy.io

    res = scipy.io.loadmat(out)
    obj = np.ravel(res["obj"])
    return dict(time=float(np.ravel(res["t"])[0]),
                top=(np.ravel(res["idx"])[:TOP].astype(int) - 1).tolist(),
                objective=float(obj[-1]) if obj.size else None)


# --------------------------------------------------------------------- main
def _uptime():
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return "uptime unavailable"


def _fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--methods", nargs="+", default=[m.name for m in METHODS],
                   choices=[m.name for m in METHODS])
    p.add_argument("--datasets", nargs="+", default=DATASETS)
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per single run")
    p.add_argument("--threads", type=int, default=1, help="BLAS threads for every run")
    p.add_argument("--repeats", type=int, default=5,
                   help="best of up to this many fits per side and cell, while their total "
                        "stays within --budget seconds (default 5)")
    p.add_argument("--budget", type=float, default=5.0,
                   help="seconds of fitting per side and cell before repeats stop (default 5)")
    p.add_argument("--baseline-src", default=None,
                   help="PYTHONPATH of an older ufsel to time against (e.g. ../old/src)")
    p.add_argument("--out", default=None, help="Markdown file for the results table")
    args = p.parse_args(argv)
    if args.repeats < 1:
        p.error(f"--repeats must be at least 1, got {args.repeats}")
    if args.worker:
        worker(args.worker)
        return 0

    ref_root = os.environ.get("UFSEL_REFERENCE_CODE")
    octave = shutil.which("octave-cli")
    have_ref = bool(octave and ref_root and Path(ref_root).is_dir())
    if not have_ref and not args.baseline_src:
        why = ("octave-cli not found" if not octave else
               "UFSEL_REFERENCE_CODE is not set" if not ref_root else
               f"UFSEL_REFERENCE_CODE={ref_root} is not a folder")
        print(f"compare_reference: skipped ({why}; see docs/guide/fidelity.md).")
        return 0
    files = find_reference_dirs(ref_root) if have_ref else {}

    from scipy.io import savemat

    from ufsel.datasets import load_dataset

    command = "python benchmarks/reproductions/compare_reference.py " + " ".join(
        a for a in (argv if argv is not None else sys.argv[1:]))
    load_start = _uptime()
    started = datetime.datetime.now(datetime.timezone.utc)
    rows = []
    header = (f"{'method':16s} {'data':7s} {'ufsel_s':>8s} {'ref_s':>8s} {'ratio':>6s} "
              f"{'base_s':>8s} {'vs_base':>7s} {'top50':>6s} {'obj_ufsel':>12s} {'obj_ref':>12s}")
    print(header, flush=True)
    reference_runs = {}
    with tempfile.TemporaryDirectory(prefix="ufsel_compare_") as tmpdir:
        tmp = Path(tmpdir)
        for dname in args.datasets:
            ds = load_dataset(dname)
            X = np.asarray(ds.data, dtype=np.float64)
            c = len(np.unique(ds.target))
            path = tmp / f"{dname}.mat"
            savemat(path, {"X": X, "c": float(c)})
            data = dict(name=dname, path=path, c=c)
            for mname in args.methods:
                m = BY_NAME[mname]
                rep = dict(repeats=args.repeats, budget=args.budget)
                u = run_ufsel(m, data, tmp, REPO / "src", args.threads, args.timeout, "new", **rep)
                # settings that share a reference pipeline (RUFS's four rows, RNE's two)
                # share one reference run per data set, so their ratios have one denominator
                rkey = (m.octave, tuple(m.needs), tuple(sorted(m.patch.items())), dname)
                if rkey not in reference_runs:
                    reference_runs[rkey] = (
                        run_octave(m, data, tmp, files, args.threads, args.timeout, **rep)
                        if have_ref else dict(error="no reference"))
                r = reference_runs[rkey]
                b = (run_ufsel(m, data, tmp, Path(args.baseline_src).resolve(), args.threads,
                               args.timeout, "base", **rep) if args.baseline_src else None)
                row = dict(method=mname, data=dname, ufsel=u, ref=r, base=b, note=m.note)
                rows.append(row)
                ut, rt = u.get("time"), r.get("time")
                bt = b.get("time") if b else None
                overlap = (len(set(u["top"]) & set(r["top"])) / TOP
                           if "top" in u and "top" in r else None)
                row["ratio"] = ut / rt if ut is not None and rt else None
                row["vs_base"] = ut / bt if ut is not None and bt else None
                row["overlap"] = overlap
                print(f"{mname:16s} {dname:7s} {_fmt(ut, '8.2f')} {_fmt(rt, '8.2f')} "
                      f"{_fmt(row['ratio'], '6.2f')} {_fmt(bt, '8.2f')} "
                      f"{_fmt(row['vs_base'], '7.2f')} {_fmt(overlap, '6.2f')} "
                      f"{_fmt(u.get('objective'), '12.6g')} {_fmt(r.get('objective'), '12.6g')}"
                      + "".join(f"  [{k}: {v['error']}]" for k, v in
                                (("ufsel", u), ("ref", r), ("base", b or {})) if "error" in v),
                      flush=True)
                if args.out:  # rewritten (atomically) after every cell: an interrupted run keeps its rows
                    write_markdown(args.out, rows, command, started, load_start, None, args)
    if args.out:
        write_markdown(args.out, rows, command, started, load_start, _uptime(), args)
        print(f"wrote {args.out}")
    return 0


def write_markdown(path, rows, command, started, load_start, load_end, args):
    lines = [
        "# ufsel against the authors' reference code",
        "",
        f"- Command: `{command}`",
        f"- Date (UTC): {started:%Y-%m-%d %H:%M}",
        f"- Load at start: `{load_start}`",
        f"- Load at end: `{load_end}`" if load_end else "- Run in progress or interrupted",
        f"- Machine: {platform.machine()}, {os.cpu_count()} cores; BLAS threads per run: "
        f"{args.threads}; per cell and side the best of up to {args.repeats} fits while their "
        f"total stays within {args.budget:g} s (longer fits: one); per-run timeout "
        f"{args.timeout:g} s",
        f"- Octave: `{_octave_version()}`",
        "",
        "ratio = ufsel / reference (<= 1: ufsel faster); vs base = ufsel / the ufsel at "
        "`--baseline-src`; top-50 = |ufsel's top 50 & reference's top 50| / 50; objectives are "
        "each implementation's own final value (comparable only where the formulas agree, see "
        "docs/guide/fidelity.md).",
        "",
        "| method | data | ufsel s | reference s | ratio | baseline s | vs base | top-50 | "
        "obj ufsel | obj reference | notes |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        u, ref, b = r["ufsel"], r["ref"], r["base"] or {}
        notes = [r["note"]] + [f"{k}: {v['error']}" for k, v in
                               (("ufsel", u), ("reference", ref), ("baseline", b)) if "error" in v]
        if b.get("dropped"):
            notes.append("baseline ignores " + ", ".join(b["dropped"]))
        lines.append(
            f"| {r['method']} | {r['data']} | {_fmt(u.get('time'), '.2f')} | "
            f"{_fmt(ref.get('time'), '.2f')} | {_fmt(r['ratio'], '.2f')} | "
            f"{_fmt(b.get('time'), '.2f')} | {_fmt(r['vs_base'], '.2f')} | "
            f"{_fmt(r['overlap'], '.2f')} | {_fmt(u.get('objective'), '.6g')} | "
            f"{_fmt(ref.get('objective'), '.6g')} | {'; '.join(n for n in notes if n)} |")
    ratios = [(r["ratio"], r["method"], r["data"]) for r in rows if r["ratio"] is not None]
    if ratios:
        worst = max(ratios)
        lines += ["", f"Against the reference code: ratio <= 1 in {sum(q <= 1 for q, _, _ in ratios)} "
                  f"of {len(ratios)} cells; the largest is {worst[0]:.2f} ({worst[1]}, {worst[2]})."]
    bases = [(r["vs_base"], r["method"], r["data"]) for r in rows if r["vs_base"] is not None]
    if bases:
        worst = max(bases)
        lines += ["", f"Against the previous version: vs base <= 1.1 in "
                  f"{sum(q <= 1.1 for q, _, _ in bases)} of {len(bases)} cells; the largest is "
                  f"{worst[0]:.2f} ({worst[1]}, {worst[2]})."]
    tmp = Path(str(path) + ".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, path)


def _octave_version():
    try:
        out = subprocess.run(["octave-cli", "--version"], capture_output=True, text=True,
                             timeout=60).stdout
        return out.splitlines()[0] if out else "?"
    except (OSError, subprocess.TimeoutExpired):
        return "not available"


if __name__ == "__main__":
    sys.exit(main())
