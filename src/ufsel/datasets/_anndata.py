"""AnnData (``.h5ad``, single-cell data): the matrix to select on, and the ranking written back.

Needs the optional package anndata (``pip install 'ufsel[anndata]'``), imported only
when an AnnData object or file is met.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from sklearn.utils import Bunch

from ..utils import atomic_open, import_optional

__all__ = ["anndata_matrix", "is_anndata", "read_h5ad", "write_h5ad",
           "write_ranking_to_anndata"]


def is_anndata(X):
    """True for an ``anndata.AnnData`` object, checked without importing anndata."""
    return any(c.__name__ == "AnnData" and c.__module__.split(".")[0] == "anndata"
               for c in type(X).__mro__)


def anndata_matrix(adata, *, layer=None, raw=False):
    """The matrix of an AnnData to select features on, and the feature names.

    Parameters
    ----------
    adata : anndata.AnnData
    layer : str or None, default=None
        Take ``adata.layers[layer]`` (e.g. ``"counts"``) instead of ``adata.X``.
    raw : bool, default=False
        Take ``adata.raw.X`` and ``adata.raw.var_names`` (the full gene set kept
        before filtering).

    Returns
    -------
    X : {ndarray, scipy.sparse.csr_matrix} of shape (n_obs, n_vars)
        Sparse matrices as CSR (a copy when stored otherwise); a backed matrix read
        into memory.
    feature_names : ndarray of str
        ``var_names``.
    """
    if layer is not None and raw:
        raise ValueError("give layer or raw, not both: a layer of .raw does not exist.")
    if raw:
        if adata.raw is None:
            raise ValueError("the AnnData has no .raw; drop raw (--raw) or name a layer.")
        X, names = adata.raw.X, adata.raw.var_names
    elif layer is not None:
        if layer not in adata.layers:
            raise ValueError(f"layer {layer!r} not found, valid options are "
                             f"{set(adata.layers.keys()) or '{} (the AnnData has no layers)'}.")
        X, names = adata.layers[layer], adata.var_names
    else:
        X, names = adata.X, adata.var_names
    if X is None:
        raise ValueError("the AnnData holds no matrix in X; name a layer (--layer).")
    if hasattr(X, "to_memory"):  # a backed dataset
        X = X.to_memory()
    elif not (sparse.issparse(X) or isinstance(X, np.ndarray)) and hasattr(X, "__array__"):
        X = np.asarray(X)
    X = X.tocsr() if sparse.issparse(X) else X
    return X, np.asarray(names, dtype=str)


def read_h5ad(path, *, label_column=None, layer=None, raw=False):
    """A Bunch (as :func:`ufsel.datasets.read_data` returns) from an ``.h5ad`` file.

    ``label_column`` names a column of ``obs`` holding labels (cell types), for
    evaluation only.
    """
    anndata = import_optional("anndata", purpose="Reading .h5ad files")
    adata = anndata.read_h5ad(path)
    X, names = anndata_matrix(adata, layer=layer, raw=raw)
    target = None
    if label_column is not None:
        if label_column not in adata.obs.columns:
            raise ValueError(f"{path}: obs has no column {label_column!r}; its columns are "
                             f"{list(adata.obs.columns)}.")
        target = np.asarray(adata.obs[label_column].astype(str) if
                            adata.obs[label_column].dtype.name == "category"
                            else adata.obs[label_column])
    data = sparse.csr_matrix(X, dtype=np.float64) if sparse.issparse(X) else np.asarray(
        X, dtype=np.float64)
    return Bunch(data=data, target=target, feature_names=list(names))


def write_h5ad(path, data, names, target=None, label_name="label"):
    """Write ``data`` as an ``.h5ad`` file (``var_names`` = ``names``, labels in ``obs``)."""
    anndata = import_optional("anndata", purpose="Writing .h5ad files")
    pd = import_optional("pandas", purpose="Writing .h5ad files")
    obs = pd.DataFrame(index=[str(i) for i in range(data.shape[0])])
    if target is not None:
        obs[label_name] = np.asarray(target)
    adata = anndata.AnnData(sparse.csr_matrix(data) if sparse.issparse(data) else
                            np.asarray(data), obs=obs, var=pd.DataFrame(index=list(names)))
    with atomic_open(path, "wb") as fh:
        adata.write_h5ad(fh)


def write_ranking_to_anndata(adata, selector, *, key_added="ufsel"):
    """Write a fitted selector's ranking into ``adata.var``, as scanpy writes ``highly_variable``.

    Adds the columns ``{key_added}_selected`` (bool), ``{key_added}_rank`` (1 = best)
    and ``{key_added}_score`` (higher is better; NaN for constant features), and
    ``adata.uns[key_added]`` (the method and its parameters).

    Parameters
    ----------
    adata : anndata.AnnData
        The data the selector was fitted on (its ``var`` rows are the features).
    selector : fitted ufsel selector or AutoSelector
    key_added : str, default="ufsel"
        Prefix of the columns and key in ``uns``.

    Returns
    -------
    adata : anndata.AnnData
        The same object, modified in place.

    Examples
    --------
    >>> import anndata  # doctest: +SKIP
    >>> sel = ufsel.select_features(adata, n_features_to_select=200)  # doctest: +SKIP
    >>> write_ranking_to_anndata(adata, sel)  # doctest: +SKIP
    >>> adata[:, adata.var["ufsel_selected"]]  # doctest: +SKIP
    """
    ranking = np.asarray(selector.ranking_)
    if ranking.shape[0] != adata.n_vars:
        raise ValueError(
            f"the selector ranks {ranking.shape[0]} features but the AnnData has "
            f"{adata.n_vars} variables (was it fitted on .raw or on another subset?)."
        )
    names = getattr(selector, "feature_names_in_", None)
    if names is not None and not np.array_equal(np.asarray(names, dtype=str),
                                                np.asarray(adata.var_names, dtype=str)):
        raise ValueError("the selector was fitted on other features than adata.var_names.")
    scores = np.asarray(selector.scores_, dtype=np.float64)
    constant = getattr(selector, "constant_features_", None)
    if constant is not None:
        scores = np.where(np.asarray(constant, dtype=bool), np.nan, scores)
    adata.var[f"{key_added}_selected"] = np.asarray(selector.get_support(), dtype=bool)
    adata.var[f"{key_added}_rank"] = ranking.astype(np.int64)
    adata.var[f"{key_added}_score"] = scores
    inner = getattr(selector, "selector_", selector)
    adata.uns[key_added] = {"method": type(inner).__name__,
                            "n_features_selected": int(np.sum(selector.get_support()))}
    return adata
