"""Transformers for data that need one before selection: count data (single-cell UMI counts).

Each is a scikit-learn transformer, to put before a selector in a pipeline::

    from sklearn.pipeline import make_pipeline
    import ufsel
    from ufsel.preprocessing import NormalizeLog1p

    pipe = make_pipeline(NormalizeLog1p(), ufsel.MCFS(n_features_to_select=200))

The functions compute the same transforms, and per-feature count scores that need no
transform (:func:`pearson_residual_variance`, :func:`binomial_deviance`).
"""

from ._counts import (
    NormalizeLog1p,
    PearsonResiduals,
    binomial_deviance,
    library_sizes,
    normalize_log1p,
    pearson_residual_variance,
    pearson_residuals,
)

__all__ = [
    "NormalizeLog1p",
    "PearsonResiduals",
    "binomial_deviance",
    "library_sizes",
    "normalize_log1p",
    "pearson_residual_variance",
    "pearson_residuals",
]
