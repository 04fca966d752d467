"""Large .npy / Parquet files: block-wise reading, decide on a sample, fit on every row."""

import json

import numpy as np
import pytest

from ufsel.cli import main
from ufsel.datasets import make_planted
from ufsel.datasets._large import open_large_file
from ufsel.model_selection._large_data import select_large_file


@pytest.fixture(scope="module")
def planted():
    return make_planted(3000, 20, 4, n_clusters=5, random_state=0)


@pytest.fixture(scope="module")
def npy_file(tmp_path_factory, planted):
    path = tmp_path_factory.mktemp("large") / "big.npy"
    np.save(path, planted[0])
    return path


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory, planted):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    X = planted[0]
    cols = {f"f{j}": X[:, j] for j in range(X.shape[1])}
    cols["label"] = planted[1]
    path = tmp_path_factory.mktemp("large") / "big.parquet"
    pq.write_table(pa.table(cols), path, row_group_size=700)  # 5 row groups
    return path


def test_npy_blocks_sample_and_whole(npy_file, planted):
    X = planted[0]
    data = open_large_file(npy_file)
    assert data.shape == X.shape and data.format == "npy"
    got = np.vstack([b for _, b in data.blocks(block_rows=1000)])
    np.testing.assert_array_equal(got, X.astype(np.float64))
    S, idx = data.sample_rows(400, random_state=0)
    assert S.shape == (400, 20) and np.all(np.diff(idx) > 0)
    np.testing.assert_array_equal(S, X[idx].astype(np.float64))
    np.testing.assert_array_equal(data.to_numpy(dtype=np.float32), X)


def test_parquet_read_by_row_groups(parquet_file, planted):
    X = planted[0]
    data = open_large_file(parquet_file, drop_columns=["label"])
    assert data.shape == X.shape and data.feature_names[0] == "f0"
    starts = [s for s, _ in data.blocks()]
    assert starts == [0, 700, 1400, 2100, 2800]
    S, idx = data.sample_rows(500, random_state=1)
    np.testing.assert_array_equal(S, X[idx].astype(np.float64))
    np.testing.assert_array_equal(data.to_numpy(dtype=np.float32), X)
    with pytest.raises(ValueError, match="not numeric|no column"):
        open_large_file(parquet_file, drop_columns=["nope"])


def test_to_dask_matches(npy_file, parquet_file, planted):
    pytest.importorskip("dask.array")
    X = planted[0]
    for data in (open_large_file(npy_file), open_large_file(parquet_file, drop_columns=["label"])):
        np.testing.assert_array_equal(data.to_dask(block_rows=1000).compute(), X)


def test_decide_on_sample_fit_on_all_rows(npy_file, planted):
    X, _, informative = planted
    res = select_large_file(npy_file, method="laplacianscore", n_features=4, sample_rows=500,
                            progress=False)
    # the fit used every row: the in-memory selector on the whole data gives the same ranking
    from ufsel import LaplacianScore

    ref = LaplacianScore(n_features_to_select=4, random_state=0).fit(X)
    np.testing.assert_array_equal(res.ranking, ref.ranking_)
    assert set(np.flatnonzero(res.support)) == set(informative)
    assert res.sample_rows == 500 and res.n_samples == 3000


def test_named_method_auto_count_and_k(npy_file, planted):
    res = select_large_file(npy_file, method="mcfs", n_features="auto", sample_rows=600,
                            progress=False)
    auto = res.auto
    assert auto.n_clusters_ >= 2 and res.params["n_clusters"] == auto.n_clusters_
    assert auto.count_.decided_by in ("relevant features", "feature-count curve",
                                      "smallest testable count")
    assert 1 <= res.n_features_to_select == auto.n_features_to_select_ <= 20


def test_progress_messages(npy_file):
    """One progress callable receives the route's steps and the rows read."""
    said = []
    select_large_file(npy_file, method="maxvariance", n_features=4, sample_rows=300,
                      progress=said.append)
    assert "reading rows: 3,000 of 3,000" in said and "fitting MaxVariance on all 3,000 rows" in said
    assert any("features" in m and "fold" in m for m in said)  # the route's scaling step


def test_cli_large_file(npy_file, parquet_file, planted, tmp_path, capsys):
    informative = set(planted[2].tolist())
    out = tmp_path / "rank.csv"
    code = main(["select", "--data", str(npy_file), "--method", "laplacianscore",
                 "--n-features", "4", "--large-rows", "1000", "--sample-rows", "500",
                 "--no-progress", "--out", str(out)])
    assert code == 0
    rows = out.read_text().splitlines()
    assert rows[0] == "feature,name,rank,score,selected,constant"
    top = {int(r.split(",")[0]) for r in rows[1:5]}
    assert top == informative
    meta = json.loads(out.with_name("rank.csv.json").read_text())
    assert meta["input"]["large_file"] and meta["input"]["sample_rows"] == 500
    printed = capsys.readouterr().out
    assert "large file" in printed
    # the large-file path gives the in-memory path's verdict, judged on its sample
    assert "Judged on the 500-row sample: LaplacianScore selected 4 features" in printed
    assert meta["verdict_details"]["outcome"] == "beats random"
    assert meta["verdict_judged_on"] == "a sample of 500 rows"
    out2 = tmp_path / "rank2.csv"
    assert main(["select", "--data", str(parquet_file), "--drop-columns", "label",
                 "--method", "maxvariance", "--n-features", "4", "--large-rows", "1000",
                 "--no-progress", "--out", str(out2)]) == 0
    assert {int(r.split(",")[0]) for r in out2.read_text().splitlines()[1:5]} == informative


def test_cli_large_file_refusals(npy_file, tmp_path, capsys):
    out = str(tmp_path / "r.csv")
    code = main(["select", "--data", str(npy_file), "--method", "maxvariance", "--n-features",
                 "4", "--large-rows", "1000", "--transform-out", str(tmp_path / "t.npy"),
                 "--out", out])
    err = capsys.readouterr().err
    assert code == 2 and "--transform-out is not available for a large file" in err
    assert len(err.strip().splitlines()) == 1
    code = main(["select", "--data", str(npy_file), "--method", "maxvariance", "--n-features",
                 "4", "--dask", "tcp://127.0.0.1:1", "--out", out])
    assert code == 2 and "--dask applies to large" in capsys.readouterr().err


def test_dask_final_fit(npy_file, planted):
    distributed = pytest.importorskip("distributed")
    pytest.importorskip("dask.array")
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                       dashboard_address=None)
    try:
        res = select_large_file(npy_file, method="maxvariance", n_features=4, sample_rows=300,
                                dask_scheduler=cluster.scheduler_address, progress=False)
        from ufsel import MaxVariance

        ref = MaxVariance(n_features_to_select=4).fit(planted[0])
        np.testing.assert_array_equal(res.ranking, ref.ranking_)
        with pytest.raises(ValueError, match="does not accept dask arrays"):
            select_large_file(npy_file, method="udfs", n_features=4, sample_rows=300,
                              n_clusters=5, dask_scheduler=cluster.scheduler_address,
                              progress=False)
    finally:
        cluster.close()


def test_standardized_fit(npy_file, planted):
    X, _, informative = planted
    res = select_large_file(npy_file, method="laplacianscore", n_features=4, sample_rows=500,
                            standardize=True, progress=False)
    assert res.standardized
    assert set(np.flatnonzero(res.support)) == set(informative)
    assert not res.constant.any()


@pytest.fixture(scope="module")
def wide_units_file(tmp_path_factory, planted):
    """The planted data with its noise columns' ranges spread 1,000-fold."""
    X, _, informative = planted
    noise = np.setdiff1d(np.arange(X.shape[1]), informative)
    X = X.copy()
    X[:, noise] *= np.geomspace(1, 1000, noise.size)
    path = tmp_path_factory.mktemp("large") / "wide.npy"
    np.save(path, X)
    return path, X


@pytest.mark.parametrize("method", ["mcfs", "auto"])
def test_large_file_decides_as_in_memory_on_its_sample(wide_units_file, planted, tmp_path,
                                                       monkeypatch, method):
    """Above the threshold the command decides on its row sample with the in-memory
    route: the same K, scaling, count and method as AutoSelector on that sample; then
    every row is fitted with the same standardiser."""
    from ufsel.cli import _large
    from ufsel.model_selection import standardized
    from ufsel.model_selection._auto import route_selector

    path, X = wide_units_file
    monkeypatch.setattr(_large, "LARGE_FILE_MIN_ROWS", 1000)
    out = tmp_path / "r.csv"
    assert main(["select", "--data", str(path), "--method", method, "--sample-rows", "600",
                 "--no-progress", "--out", str(out)]) == 0
    meta = json.loads(out.with_name("r.csv.json").read_text())
    assert meta["input"]["large_file"] and meta["input"]["sample_rows"] == 600
    S, _ = open_large_file(path).sample_rows(600, random_state=0)
    ref = route_selector(method).fit(S)
    assert ref.description_.standardized and meta["standardized"] is True
    assert meta["describe"] == ref.description_.to_dict()
    assert meta["criterion_n_clusters"] == ref.n_clusters_
    assert meta["count"] == ref.record()["count"]
    assert meta["n_features_selected"] == ref.n_features_to_select_
    assert meta["choice"]["method"] == ref.method_
    assert meta["verdict"] == ref.verdict_.summary()
    # the in-memory sidecar's schema, plus what only a large file has
    for key in ("candidates", "choice", "count", "describe", "verdict_details", "parameters"):
        assert key in meta
    # every row fitted, standardised as in memory
    est = type(ref.selector_)(**ref.selector_.get_params()).fit(standardized(X))
    kept = sorted(f["index"] for f in meta["selected_features"])
    assert kept == sorted(np.flatnonzero(est.get_support()).tolist())
