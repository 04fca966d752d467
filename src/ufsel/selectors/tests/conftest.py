"""Fixtures shared by the selector tests."""

import pytest

from ufsel.datasets import make_planted_clusters


@pytest.fixture(scope="module")
def planted():
    """Three draws of 150 samples, 4 clusters, 5 informative among 40 features."""
    return [make_planted_clusters(150, 5, 35, 4, random_state=s) for s in range(3)]
