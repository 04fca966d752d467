"""Graph building blocks: sparse k-NN affinities, anchor graphs, Laplacians, spectral embedding, local-learning graphs."""

# ``import X as X``: building blocks the selectors share, reached through this package
# rather than its private modules; not documented API (not in __all__).
from ._adaptive import adaptive_neighbors, can_weights, nearest_by_exact_distance
from ._adaptive import sorted_candidate_distances as sorted_candidate_distances
from ._affinity import SYMMETRIZE as SYMMETRIZE
from ._affinity import WEIGHTS as WEIGHTS
from ._affinity import bandwidth_before_search as bandwidth_before_search
from ._affinity import heat_kernel_bandwidth, knn_affinity, symmetrize
from ._affinity import knn_affinity_and_bandwidth as knn_affinity_and_bandwidth
from ._anchor import (
    ANCHOR_GRAPH_MIN_SAMPLES,
    GRAPHS,
    N_ANCHORS,
    AnchorGraph,
    anchor_graph,
    anchor_landmarks,
    resolve_graph,
)
from ._anchor import ANCHOR_INITS as ANCHOR_INITS
from ._approximate import ANN_BACKENDS, approximate_backend
from ._embedding import PCA_COMPONENTS, PCA_NEIGHBORS, pca_embedding, pca_knn_affinity
from ._knn import (
    APPROX_NEIGHBORS_MIN_SAMPLES,
    NEIGHBORS_ALGORITHMS,
    SearchPlan,
    knn_graph,
    plan_search,
    resolve_neighbors_algorithm,
    reuse_neighbor_searches,
)
from ._local import (
    global_discriminative_laplacian,
    local_centered_kernels,
    local_discriminative_laplacian,
    local_kernel_regression_weights,
    local_learning_laplacian,
    local_regions,
    weighted_knn_graph,
)
from ._local import row_chunks as row_chunks
from ._local import scatter_local_blocks as scatter_local_blocks
from ._reconstruction import lle_weights, local_krr_laplacian, reconstruction_laplacian
from ._refine import knn_among_candidates, refine_neighbors, two_hop_candidates
from ._refine import padded_rows as padded_rows
from ._spectral import (
    AMG_MIN_NODES,
    EIGEN_SOLVERS,
    canonical_embedding,
    determined_spectral_embedding,
    graph_laplacian,
    laplacian_smallest,
    null_space_dimension,
    spectral_embedding,
)

__all__ = [
    "ANCHOR_GRAPH_MIN_SAMPLES",
    "AnchorGraph",
    "GRAPHS",
    "N_ANCHORS",
    "anchor_graph",
    "anchor_landmarks",
    "resolve_graph",
    "AMG_MIN_NODES",
    "ANN_BACKENDS",
    "approximate_backend",
    "APPROX_NEIGHBORS_MIN_SAMPLES",
    "EIGEN_SOLVERS",
    "NEIGHBORS_ALGORITHMS",
    "resolve_neighbors_algorithm",
    "SearchPlan",
    "plan_search",
    "adaptive_neighbors",
    "can_weights",
    "canonical_embedding",
    "determined_spectral_embedding",
    "global_discriminative_laplacian",
    "graph_laplacian",
    "heat_kernel_bandwidth",
    "knn_affinity",
    "knn_among_candidates",
    "knn_graph",
    "PCA_COMPONENTS",
    "PCA_NEIGHBORS",
    "pca_embedding",
    "pca_knn_affinity",
    "refine_neighbors",
    "reuse_neighbor_searches",
    "laplacian_smallest",
    "lle_weights",
    "nearest_by_exact_distance",
    "local_centered_kernels",
    "local_discriminative_laplacian",
    "local_kernel_regression_weights",
    "local_krr_laplacian",
    "local_learning_laplacian",
    "local_regions",
    "null_space_dimension",
    "reconstruction_laplacian",
    "spectral_embedding",
    "symmetrize",
    "two_hop_candidates",
    "weighted_knn_graph",
]
