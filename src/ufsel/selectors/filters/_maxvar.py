"""MaxVariance: rank features by their variance."""

from __future__ import annotations

from ...base import BaseSelector
from ...linalg import column_mean_var

__all__ = ["MaxVariance"]


class MaxVariance(BaseSelector):
    """Select the features of largest variance.

    The simplest unsupervised criterion, ``score_j = Var(x_j)``: the baseline of MCFS
    (Cai et al., KDD 2010, Section 5) and of most later papers.

    Sparse input is never densified; a dask array is reduced blockwise in one pass.

    Parameters
    ----------
    {n_features_to_select}

    Attributes
    ----------
    scores_ : ndarray of shape (n_features,)
        Feature variances.
    {selector_attributes}

    See Also
    --------
    LaplacianScore, MCFS

    Notes
    -----
    The variance is the biased one (``ddof=0``); MATLAB's ``var`` (``n - 1``), used by
    the reference code, gives the same ranking. Float32 input is processed in
    float32, with the scores in float64.

    Examples
    --------
    >>> import numpy as np
    >>> from ufsel import MaxVariance
    >>> X = np.array([[0., 1., 5.], [0., 3., -5.], [0., 2., 0.]])
    >>> MaxVariance(n_features_to_select=1).fit(X).get_support()
    array([False, False,  True])
    """

    def __init__(self, n_features_to_select=None):
        super().__init__(n_features_to_select=n_features_to_select)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.selector_tags.supports_dask = True
        tags.selector_tags.sparse_native = True
        return tags

    def _fit(self, X):
        return column_mean_var(X)[1]
