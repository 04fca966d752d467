"""Label-free model selection: the number of clusters, the method and the feature count.

Nothing here uses labels. :func:`estimate_n_clusters` estimates K from the
eigengap of the normalised k-NN Laplacian; :func:`selection_stability` is
Nogueira et al.'s stability with its confidence interval;
:func:`random_subset_test` compares a subset with random subsets of the same
size by a label-free criterion; :func:`suggest_n_features` suggests a count;
:func:`assess_selection` judges any selection (test and stability);
:class:`MethodRecommender` recommends a method from the benchmark data sets nearest
to X by :func:`meta_features`; :class:`LearnedScorer` scores the route's candidates
with a model learned on labelled and planted data and gives a calibrated probability
that a selection like the chosen one beats random subsets on labelled data;
:class:`AutoSelector` / :func:`select_features` put them together, and
:func:`selection_report` shows what they did on one HTML page.
"""

from ._auto import (
    DEFAULT_METHODS,
    UNITS_SPREAD,
    AutoSelector,
    scale_spread,
    select_features,
    smallest_testable_count,
    standardized,
)
from ._criteria import CRITERIA, DEFAULT_CRITERION
from ._feature_count import FeatureCountCurve, default_counts, suggest_n_features
from ._large_data import select_large_file
from ._n_clusters import estimate_n_clusters
from ._random_subset import RandomSubsetTest, random_subset_test
from ._recommend import (
    META_FEATURES,
    MethodRecommender,
    Recommendation,
    meta_features,
    read_training_table,
)
from ._relevance import FeatureRelevance, RelevanceTest, feature_relevance, relevance_test
from ._report import selection_report
from ._route import (
    CandidateSpec,
    CountDecision,
    CountRule,
    DataDescription,
    Evidence,
    HandRule,
    ScoredChoice,
)
from ._scorer import LearnedScorer
from ._stability import Stability, selection_stability, stability_from_selections
from ._verdict import Verdict, VerdictGate, assess_selection

__all__ = [
    "AutoSelector",
    "CRITERIA",
    "DEFAULT_CRITERION",
    "DEFAULT_METHODS",
    "UNITS_SPREAD",
    "FeatureCountCurve",
    "META_FEATURES",
    "MethodRecommender",
    "Recommendation",
    "RandomSubsetTest",
    "Stability",
    "Verdict",
    "VerdictGate",
    "CountRule",
    "CountDecision",
    "CandidateSpec",
    "HandRule",
    "ScoredChoice",
    "DataDescription",
    "Evidence",
    "LearnedScorer",
    "FeatureRelevance",
    "RelevanceTest",
    "feature_relevance",
    "relevance_test",
    "assess_selection",
    "default_counts",
    "estimate_n_clusters",
    "meta_features",
    "random_subset_test",
    "read_training_table",
    "scale_spread",
    "select_features",
    "select_large_file",
    "selection_report",
    "selection_stability",
    "smallest_testable_count",
    "stability_from_selections",
    "standardized",
    "suggest_n_features",
]
