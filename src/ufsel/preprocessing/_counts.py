"""Count data (single-cell UMI counts): library-size normalisation, Pearson residuals, deviance."""

from __future__ import annotations

from numbers import Real

import numpy as np
from scipy import sparse
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin, _fit_context
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["NormalizeLog1p", "PearsonResiduals", "binomial_deviance", "library_sizes",
           "normalize_log1p", "pearson_residual_variance", "pearson_residuals"]

#: Default overdispersion of the analytic Pearson residuals (Lause et al. 2021).
THETA = 100.0
#: Entries (rows x genes) of the dense residual block formed at a time.
BLOCK_ENTRIES = 2**22


def _check_counts(X, owner):
    """``X`` as float CSR or ndarray (float32 kept), with non-negative finite values."""
    if not sparse.issparse(X):
        X = np.asarray(X)
        if X.dtype.kind not in "biuf":
            raise ValueError(f"{owner} needs numeric counts, got dtype {X.dtype}.")
        if X.ndim != 2:
            raise ValueError(f"{owner} needs a 2D array of counts, got {X.ndim}D.")
    values = X.data if sparse.issparse(X) else X
    if values.size and not np.isfinite(values).all():
        raise ValueError(f"{owner} needs finite counts; X holds NaN or infinity.")
    if values.size and values.min() < 0:
        raise ValueError(f"Negative values in data passed to {owner}, which needs non-negative "
                         "counts (are the data already normalised or log-transformed?).")
    dtype = X.dtype if X.dtype in (np.float32, np.float64) else np.float64
    return sparse.csr_matrix(X, dtype=dtype) if sparse.issparse(X) else X.astype(dtype,
                                                                                   copy=False)


def library_sizes(X):
    """Total count of each sample (row), in float64.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Counts.

    Returns
    -------
    sizes : ndarray of shape (n_samples,)
    """
    return np.asarray(X.sum(axis=1), dtype=np.float64).ravel()


def _row_scale(X, factor):
    """X with row i multiplied by ``factor[i]``: a new array, sparsity kept."""
    factor = factor.astype(X.dtype, copy=False)
    if sparse.issparse(X):
        Y = X.copy()
        Y.data *= np.repeat(factor, np.diff(Y.indptr))
        return Y
    return X * factor[:, None]


def _normalize_log1p(X, target_sum):
    sizes = library_sizes(X)
    factor = np.divide(target_sum, sizes, out=np.zeros_like(sizes), where=sizes > 0)
    Y = _row_scale(X, factor)
    values = Y.data if sparse.issparse(Y) else Y
    np.log1p(values, out=values)
    return Y


def _median_size(sizes):
    positive = sizes[sizes > 0]
    return float(np.median(positive)) if positive.size else 1.0


def normalize_log1p(X, *, target_sum=None):
    """Scale each sample to the same total count, then ``log(1 + x)``.

    Sample i becomes ``log1p(x_i * target_sum / sum(x_i))`` (a sample with no
    counts stays zero). Zeros stay zeros, so sparse input stays sparse; float32
    stays float32. scanpy's ``normalize_total`` followed by ``log1p``.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Non-negative counts.
    target_sum : float or None, default=None
        Total count of every sample after scaling; None takes the median of the
        samples' totals (those above zero).

    Returns
    -------
    X_new : {ndarray, csr_matrix} of shape (n_samples, n_features)
        A new array; X is not modified.
    """
    X = _check_counts(X, "normalize_log1p")
    if target_sum is None:
        target_sum = _median_size(library_sizes(X))
    return _normalize_log1p(X, float(target_sum))


def _gene_fractions(X):
    totals = np.asarray(X.sum(axis=0), dtype=np.float64).ravel()
    grand = totals.sum()
    return totals / grand if grand > 0 else totals


def _residual_block(Xb, fractions, theta, clip):
    """Clipped analytic Pearson residuals of a row block (dense float64)."""
    sizes = library_sizes(Xb)
    mu = np.outer(sizes, fractions)
    Xb = Xb.toarray() if sparse.issparse(Xb) else Xb
    Z = np.subtract(Xb, mu, dtype=np.float64)
    sd = np.sqrt(mu + mu * mu / theta)
    np.divide(Z, sd, out=Z, where=sd > 0)
    Z[sd == 0] = 0.0  # no expected counts (a gene or a sample with none): residual 0
    return np.clip(Z, -clip, clip, out=Z)


def _block_rows(n_features):
    return max(1, BLOCK_ENTRIES // max(n_features, 1))


def pearson_residuals(X, *, theta=THETA, clip=None, dtype=None):
    """Analytic Pearson residuals of counts (dense).

    ``z_ij = (x_ij - mu_ij) / sqrt(mu_ij + mu_ij^2 / theta)`` with
    ``mu_ij = n_i p_j``, ``n_i`` the sample's total and ``p_j`` the feature's share
    of all counts (the null model of one negative binomial per gene with shared
    overdispersion ``theta``; Lause, Berens and Kobak 2021 [1]_, Eq. 3), clipped to
    ``[-clip, clip]``. The residuals are dense: an n x d array (use
    :func:`pearson_residual_variance` to rank genes without forming it).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Non-negative counts (raw UMI counts, not normalised).
    theta : float, default=100
        Overdispersion; the paper's default.
    clip : float or None, default=None
        None clips to ``sqrt(n_samples)`` (the paper's and scanpy's default).
    dtype : {numpy.float32, numpy.float64} or None, default=None
        Of the result; None keeps X's float type (float64 for integers).

    Returns
    -------
    Z : ndarray of shape (n_samples, n_features)

    References
    ----------
    .. [1] Lause, J., Berens, P. and Kobak, D. (2021). Analytic Pearson residuals for
       normalization of single-cell RNA-seq UMI data. Genome Biology 22, 258.
    """
    X = _check_counts(X, "pearson_residuals")
    clip = np.sqrt(X.shape[0]) if clip is None else float(clip)
    return _residuals(X, _gene_fractions(X), float(theta), clip, dtype or X.dtype)


def _residuals(X, fractions, theta, clip, dtype):
    n, d = X.shape
    Z = np.empty((n, d), dtype=dtype)
    step = _block_rows(d)
    for a in range(0, n, step):
        Z[a:a + step] = _residual_block(X[a:a + step], fractions, theta, clip)
    return Z


def pearson_residual_variance(X, *, theta=THETA, clip=None):
    """Variance of each feature's clipped analytic Pearson residuals, without forming them all.

    The gene score of scanpy's ``highly_variable_genes(flavor="pearson_residuals")``
    (Lause et al. 2021): the residuals of :func:`pearson_residuals`, formed
    :data:`BLOCK_ENTRIES` entries at a time (memory: X plus one block), their
    variance over the samples (``ddof=0``). Features with no counts score 0.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Non-negative counts.
    theta, clip
        As in :func:`pearson_residuals`.

    Returns
    -------
    variance : ndarray of shape (n_features,)
    """
    X = _check_counts(X, "pearson_residual_variance")
    n, d = X.shape
    clip = np.sqrt(n) if clip is None else float(clip)
    fractions = _gene_fractions(X)
    step = _block_rows(d)
    # one pass; the blocks' means and centred sums of squares merged as they come
    # (Chan, Golub and LeVeque's pairwise update)
    count, mean, m2 = 0, np.zeros(d), np.zeros(d)
    for a in range(0, n, step):
        Z = _residual_block(X[a:a + step], fractions, float(theta), clip)
        nb, mb = Z.shape[0], Z.mean(axis=0)
        delta = mb - mean
        m2 += ((Z - mb) ** 2).sum(axis=0) + delta**2 * count * nb / (count + nb)
        mean += delta * nb / (count + nb)
        count += nb
    return m2 / n


def binomial_deviance(X):
    """Each feature's binomial deviance from a constant share of every sample's counts.

    ``D_j = 2 sum_i [x_ij log(x_ij / (n_i p_j)) + (n_i - x_ij) log((n_i - x_ij) /
    (n_i (1 - p_j)))]`` with ``n_i`` the sample's total and ``p_j`` the feature's
    share of all counts (Townes, Hicks, Aryee and Irizarry 2019 [1]_, "deviance"
    feature selection): large for features whose share varies between samples.
    A zero count contributes ``-n_i log(1 - p_j)``, so the sum over the zeros is a
    column total minus the non-zero rows' part: sparse X is never densified
    (O(nnz) work).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Non-negative counts.

    Returns
    -------
    deviance : ndarray of shape (n_features,)
        0 for features with no counts.

    References
    ----------
    .. [1] Townes, F. W., Hicks, S. C., Aryee, M. J. and Irizarry, R. A. (2019).
       Feature selection and dimension reduction for single-cell RNA-Seq based on a
       multinomial model. Genome Biology 20, 295.
    """
    X = sparse.csr_matrix(_check_counts(X, "binomial_deviance"), dtype=np.float64)
    X.eliminate_zeros()
    sizes = library_sizes(X)
    p = _gene_fractions(X)
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    x, j, n_i = X.data, X.indices, sizes[rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = n_i - x
        log_q = np.log1p(-p)  # -inf for a feature holding every count
        term = x * np.log(x / (n_i * p[j]))
        term += np.where(rest > 0, rest * (np.log(rest / n_i) - log_q[j]), 0.0)
        nonzero_sizes = np.bincount(j, weights=n_i, minlength=X.shape[1])
        zeros = -(sizes.sum() - nonzero_sizes) * log_q
    deviance = 2.0 * (np.bincount(j, weights=term, minlength=X.shape[1])
                      + np.where(p < 1, zeros, 0.0))
    return np.where(p > 0, np.maximum(deviance, 0.0), 0.0)


class _CountTransformer(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Validation shared by the count transformers."""

    def _validate_counts(self, X, *, reset):
        X = validate_data(self, X, accept_sparse=("csr", "csc", "coo"),
                          dtype=[np.float64, np.float32], reset=reset)
        return _check_counts(X, type(self).__name__)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.positive_only = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags


class NormalizeLog1p(_CountTransformer):
    """Library-size normalisation then ``log(1 + x)``, as a transformer.

    Every sample is scaled to the same total count ``target_sum_`` and
    log-transformed (:func:`normalize_log1p`); sparse input stays sparse. Composes
    with a selector in a pipeline:
    ``make_pipeline(NormalizeLog1p(), ufsel.MCFS(n_features_to_select=200))``.

    Parameters
    ----------
    target_sum : float or None, default=None
        Total count of every sample after scaling; None learns the median of the
        training samples' totals (scanpy's default).

    Attributes
    ----------
    target_sum_ : float
        The total used.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when X has feature names.

    See Also
    --------
    PearsonResiduals : the variance-stabilising alternative (dense output).

    Examples
    --------
    >>> from ufsel.datasets import make_planted_counts
    >>> from ufsel.preprocessing import NormalizeLog1p
    >>> X, y, markers = make_planted_counts(500, 100, 10, random_state=0)
    >>> NormalizeLog1p(target_sum=1e4).fit_transform(X).format
    'csr'
    """

    _parameter_constraints: dict = {
        "target_sum": [Interval(Real, 0, None, closed="neither"), None],
    }

    def __init__(self, target_sum=None):
        self.target_sum = target_sum

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn ``target_sum_`` (the median total when ``target_sum`` is None).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative counts.
        y : None
            Ignored.
        """
        X = self._validate_counts(X, reset=True)
        self.target_sum_ = (_median_size(library_sizes(X)) if self.target_sum is None
                            else float(self.target_sum))
        return self

    def transform(self, X):
        """Scale each sample to ``target_sum_`` counts and take ``log1p``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative counts.
        """
        check_is_fitted(self, "target_sum_")
        return _normalize_log1p(self._validate_counts(X, reset=False), self.target_sum_)


class PearsonResiduals(_CountTransformer):
    """Analytic Pearson residuals of counts (Lause, Berens and Kobak 2021), as a transformer.

    ``fit`` learns each feature's share of the counts ``gene_fraction_`` and the
    clipping bound; ``transform`` gives the clipped residuals
    ``(x_ij - n_i p_j) / sqrt(mu_ij + mu_ij^2 / theta)`` (:func:`pearson_residuals`)
    with the samples' own totals ``n_i``. The output is dense (n x d); to rank genes by
    residual variance without it, use :func:`pearson_residual_variance`.

    Parameters
    ----------
    theta : float, default=100
        Overdispersion.
    clip : float or None, default=None
        Residuals are clipped to ``[-clip, clip]``; None: ``sqrt(n_samples)`` of the
        training data.

    Attributes
    ----------
    gene_fraction_ : ndarray of shape (n_features,)
        Each feature's share of all training counts.
    clip_ : float
        The clipping bound used.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when X has feature names.

    See Also
    --------
    NormalizeLog1p : sparse-preserving normalisation.

    References
    ----------
    .. [1] Lause, J., Berens, P. and Kobak, D. (2021). Analytic Pearson residuals for
       normalization of single-cell RNA-seq UMI data. Genome Biology 22, 258.

    Examples
    --------
    >>> from ufsel.datasets import make_planted_counts
    >>> from ufsel.preprocessing import PearsonResiduals
    >>> X, y, markers = make_planted_counts(500, 100, 10, random_state=0)
    >>> PearsonResiduals().fit_transform(X).shape
    (500, 100)
    """

    _parameter_constraints: dict = {
        "theta": [Interval(Real, 0, None, closed="neither")],
        "clip": [Interval(Real, 0, None, closed="left"), None],
    }

    def __init__(self, theta=THETA, clip=None):
        self.theta = theta
        self.clip = clip

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the features' shares of the counts and the clipping bound.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative counts.
        y : None
            Ignored.
        """
        X = self._validate_counts(X, reset=True)
        self.gene_fraction_ = _gene_fractions(X)
        self.clip_ = float(np.sqrt(X.shape[0]) if self.clip is None else self.clip)
        return self

    def transform(self, X):
        """The clipped residuals (dense, X's float type).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Non-negative counts.
        """
        check_is_fitted(self, "gene_fraction_")
        X = self._validate_counts(X, reset=False)
        return _residuals(X, self.gene_fraction_, float(self.theta), self.clip_, X.dtype)
