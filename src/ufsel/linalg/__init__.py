"""Linear-algebra building blocks shared by the selectors."""

# ``import X as X``: building blocks the selectors and ufsel.graph share, reached
# through this package rather than its private modules; not documented API (not in
# __all__).
from ._eigen import DENSE_EIGH_MAX, amg_preconditioner, partial_eigh
from ._eigen import DENSE_SMALLEST_MAX as DENSE_SMALLEST_MAX
from ._indicator import KMEANS_SAMPLE_ROWS as KMEANS_SAMPLE_ROWS
from ._indicator import indicator_blocks as indicator_blocks
from ._indicator import kmeans_indicator, scaled_indicator
from ._indicator import kmeans_labels as kmeans_labels
from ._indicator import label_counts as label_counts
from ._ky_fan import (
    KyFanStep,
    centered_row_space,
    ky_fan_smallest,
    ky_fan_smallest_diag_low_rank,
    ky_fan_smallest_low_rank,
)
from ._ky_fan import RowSpaceQuadratic as RowSpaceQuadratic
from ._lars import lars_at_cardinalities
from ._local import centered_gram, local_gram
from ._multiplicative import multiplicative_update
from ._orth import polar_factor, stiefel_quadratic, stiefel_quadratic_objective
from ._ridge import RidgeFactor, ridge_hat_complement, weighted_ridge
from ._sparse_reg import (
    l2p_norm,
    l2p_reweight,
    pos_neg_parts,
    project_simplex,
    row_norms_sq,
    row_soft_threshold,
    soft_threshold,
)
from ._sparse_reg import l2p_norm_from_sq as l2p_norm_from_sq
from ._sparse_reg import l2p_reweight_from_sq as l2p_reweight_from_sq
from ._stats import (
    center_unit_norm,
    column_mean_var,
    constant_features,
    gram_matrix,
    graph_quadratic,
    scatter_matrix,
    scatter_operator,
    sparse_dense_matmul,
    transpose_dot,
    weighted_moments,
)
from ._stats import check_gram_size as check_gram_size
from ._warm_eigh import eigen_residuals, smallest_eigvecs, warm_smallest_eigvecs
from ._warm_eigh import resolve_eigen_method as resolve_eigen_method
from ._woodbury import identity_plus_gram_inverse, ridge_solve

__all__ = [
    "DENSE_EIGH_MAX",
    "KyFanStep",
    "centered_row_space",
    "ky_fan_smallest",
    "ky_fan_smallest_diag_low_rank",
    "ky_fan_smallest_low_rank",
    "center_unit_norm",
    "RidgeFactor",
    "centered_gram",
    "amg_preconditioner",
    "column_mean_var",
    "constant_features",
    "kmeans_indicator",
    "local_gram",
    "ridge_hat_complement",
    "scaled_indicator",
    "warm_smallest_eigvecs",
    "smallest_eigvecs",
    "eigen_residuals",
    "weighted_ridge",
    "gram_matrix",
    "graph_quadratic",
    "scatter_operator",
    "sparse_dense_matmul",
    "transpose_dot",
    "weighted_moments",
    "l2p_norm",
    "l2p_reweight",
    "pos_neg_parts",
    "project_simplex",
    "row_norms_sq",
    "row_soft_threshold",
    "soft_threshold",
    "lars_at_cardinalities",
    "partial_eigh",
    "polar_factor",
    "stiefel_quadratic",
    "stiefel_quadratic_objective",
    "scatter_matrix",
    "identity_plus_gram_inverse",
    "multiplicative_update",
    "ridge_solve",
]
