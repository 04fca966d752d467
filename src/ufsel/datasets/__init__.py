"""Data sets: the benchmark .mat files, a user's data files, scikit-learn's built-ins, synthetic generators."""

from ._anndata import anndata_matrix, write_ranking_to_anndata
from ._corrupt import occlude
from ._load import load_dataset
from ._loaders import DATA_ENV, list_datasets, load_mat
from ._planted import make_planted
from ._planted_counts import make_planted_counts, make_planted_counts_dask
from ._planted_dask import make_planted_dask
from ._readers import FORMATS, read_data, read_labels
from ._sanity import SANITY_GENERATORS, SanityCase, make_sanity_case, sanity_suite
from ._scale import make_mnist70k_like, make_sparse_tfidf, shift_images
from ._synthetic import make_planted_clusters, make_three_gaussians
from ._writers import write_data

__all__ = [
    "SANITY_GENERATORS",
    "SanityCase",
    "make_sanity_case",
    "sanity_suite",
    "DATA_ENV",
    "FORMATS",
    "anndata_matrix",
    "list_datasets",
    "load_dataset",
    "load_mat",
    "make_mnist70k_like",
    "make_planted",
    "make_planted_clusters",
    "make_planted_counts",
    "make_planted_counts_dask",
    "make_planted_dask",
    "make_sparse_tfidf",
    "shift_images",
    "make_three_gaussians",
    "occlude",
    "read_data",
    "read_labels",
    "write_data",
    "write_ranking_to_anndata",
]
