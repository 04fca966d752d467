"""Re-export of :mod:`_harness`'s leaderboard readers for ``label_free_route.py``.

Only ``label_free_route.py`` imports this name; once it imports ``_harness`` directly
(and moves to ``studies/``), delete this file.
"""

from _harness import ratio_counts, ratio_mean, read_leaderboard

__all__ = ["ratio_counts", "ratio_mean", "read_leaderboard"]
