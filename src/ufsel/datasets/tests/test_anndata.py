import csv
import json
import sys

import numpy as np
import pytest
from scipy import sparse

import ufsel
from ufsel.cli import main
from ufsel.datasets import make_planted_counts, read_data, write_ranking_to_anndata
from ufsel.datasets._anndata import anndata_matrix, is_anndata


@pytest.fixture(scope="module")
def adata():
    anndata = pytest.importorskip("anndata")
    pd = pytest.importorskip("pandas")
    X, y, markers = make_planted_counts(400, 60, 12, n_clusters=3, density=0.2,
                                        random_state=0)
    genes = [f"gene{j}" for j in range(60)]
    a = anndata.AnnData(np.log1p(X), obs=pd.DataFrame({"cell_type": pd.Categorical(
        [f"t{k}" for k in y])}, index=[f"c{i}" for i in range(400)]),
        var=pd.DataFrame(index=genes))
    a.layers["counts"] = X.copy()
    a.raw = anndata.AnnData(X.copy(), var=pd.DataFrame(index=genes))
    a = a[:, 5:].copy()  # X and the layer hold 55 genes, .raw all 60
    return a, X, y, markers


def test_reads_x_a_layer_and_raw(tmp_path, adata):
    a, X, y, _ = adata
    path = tmp_path / "atlas.h5ad"
    a.write_h5ad(path)
    b = read_data(path)
    assert b.format == "h5ad" and b.feature_names == [f"gene{j}" for j in range(5, 60)]
    assert sparse.isspmatrix_csr(b.data) and b.data.dtype == np.float64
    np.testing.assert_allclose(b.data.toarray(), np.log1p(X[:, 5:].toarray()), rtol=1e-6)
    b = read_data(path, layer="counts", label_column="cell_type")
    assert (b.data != X[:, 5:]).nnz == 0
    np.testing.assert_array_equal(b.target, [f"t{k}" for k in y])
    b = read_data(path, raw=True)
    assert b.data.shape == (400, 60) and b.feature_names[0] == "gene0"
    with pytest.raises(ValueError, match="layer 'spliced' not found"):
        read_data(path, layer="spliced")
    with pytest.raises(ValueError, match="not both"):
        read_data(path, layer="counts", raw=True)
    np.save(tmp_path / "x.npy", np.ones((3, 2)))
    with pytest.raises(ValueError, match="apply to .h5ad"):
        read_data(tmp_path / "x.npy", layer="counts")


def test_select_features_on_anndata_keeps_gene_names(adata):
    a, _, _, _ = adata
    a = a.copy()
    assert is_anndata(a) and not is_anndata(a.X)
    sel = ufsel.select_features(a, methods=["maxvariance"], n_features_to_select=5,
                                n_clusters=3, n_resamples=0, verdict=False)
    np.testing.assert_array_equal(sel.feature_names_in_, np.asarray(a.var_names))
    assert set(sel.get_feature_names_out()) <= set(a.var_names)
    write_ranking_to_anndata(a, sel)
    assert a.var["ufsel_selected"].dtype == bool and a.var["ufsel_selected"].sum() == 5
    np.testing.assert_array_equal(a.var["ufsel_rank"], sel.ranking_)
    np.testing.assert_array_equal(a.var_names[a.var["ufsel_selected"].to_numpy()],
                                  sel.get_feature_names_out())
    assert a.uns["ufsel"]["method"] == "MaxVariance"
    # a selector fitted on .raw does not fit adata.var
    Xr, names = anndata_matrix(a, raw=True)
    raw_sel = ufsel.MaxVariance(n_features_to_select=5).fit(Xr)
    with pytest.raises(ValueError, match="60 features but the AnnData has 55"):
        write_ranking_to_anndata(a, raw_sel)


def test_cli_selects_on_a_layer_of_counts(tmp_path, adata, capsys):
    a, _, _, _ = adata
    path = tmp_path / "atlas.h5ad"
    a.write_h5ad(path)
    out = tmp_path / "r.csv"
    assert main(["select", "--data", str(path), "--layer", "counts", "--counts", "log1p",
                 "--method", "maxvariance", "--n-features", "5", "--no-verdict",
                 "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "(h5ad, sparse" in text and "log1p of library-size-normalised counts" in text
    with out.open() as fh:
        rows = list(csv.DictReader(fh))
    assert {r["name"] for r in rows} == {f"gene{j}" for j in range(5, 60)}
    meta = json.loads((tmp_path / "r.csv.json").read_text())
    assert meta["counts"] == "log1p" and meta["input"]["format"] == "h5ad"
    assert main(["select", "--data", str(path), "--raw", "--method", "maxvariance",
                 "--n-features", "5", "--no-verdict", "--out", str(tmp_path / "raw.csv")]) == 0


def test_without_anndata_the_error_names_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "atlas.h5ad"
    path.write_bytes(b"not read")
    monkeypatch.setitem(sys.modules, "anndata", None)
    with pytest.raises(ImportError, match=r"pip install 'ufsel\[anndata\]'"):
        read_data(path)
