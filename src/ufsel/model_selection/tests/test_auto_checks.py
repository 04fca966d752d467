"""scikit-learn's common estimator checks on AutoSelector, the meta-estimator."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from ufsel import AutoSelector

_ONE_CLUSTER = ("the check sets n_clusters=1, which AutoSelector refuses: its criterion "
                "compares partitions of the samples, and one cluster is every partition")

#: Checks AutoSelector fails, each with its reason.
EXPECTED_FAILED = {
    "check_dont_overwrite_parameters": _ONE_CLUSTER,
    "check_methods_subset_invariance": _ONE_CLUSTER,
    "check_fit2d_1sample": _ONE_CLUSTER,
    "check_fit2d_1feature": _ONE_CLUSTER,
    "check_fit2d_predict1d": _ONE_CLUSTER,
}


@parametrize_with_checks(
    [AutoSelector(methods=["maxvariance", "laplacianscore"], n_clusters=2, n_draws=2,
                  n_resamples=0, n_features_to_select=1)],
    expected_failed_checks=lambda est: EXPECTED_FAILED)
def test_auto_selector_follows_the_estimator_contract(estimator, check):
    check(estimator)
