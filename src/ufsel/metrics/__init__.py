"""Evaluation metrics of the unsupervised feature selection literature."""

# ``import X as X``: shared with ufsel.evaluation, not documented API (not in __all__)
from ._clustering import check_labels as check_labels
from ._clustering import clustering_accuracy, normalized_mutual_info
from ._nn import nn_loo_error

__all__ = ["clustering_accuracy", "normalized_mutual_info", "nn_loo_error"]
