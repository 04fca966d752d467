"""Which selectors depend on the scale of the features (the table of docs/guide/preprocessing.md).

For every registered selector, on scikit-learn's wine data (13 features whose standard
deviations range from 0.12 to 314): is the ranking unchanged when every standardised
feature is multiplied by a random positive factor in [1e-2, 1e2]; which 4 features it
keeps on the raw and on the standardised data; and the k-means accuracy (mean of 10
runs) on those 4 features, raw and standardised.

    OMP_NUM_THREADS=1 python benchmarks/studies/scale_sensitivity.py
"""

import warnings

import numpy as np
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

import ufsel
from ufsel.evaluation import evaluate_clustering


def main():
    X, y = load_wine(return_X_y=True)
    Xs = StandardScaler().fit_transform(X)
    factors = 10 ** np.random.default_rng(0).uniform(-2, 2, X.shape[1])
    print("| method | ranking scale-invariant | 4 kept, raw | ACC raw | 4 kept, standardised "
          "| ACC standardised |")
    print("|---|---|---|---|---|---|")
    for name in sorted(ufsel.SELECTORS):
        cls = ufsel.SELECTORS[name]
        params = cls().get_params()
        kw = {"n_features_to_select": 4}
        if "n_clusters" in params:
            kw["n_clusters"] = 3
        if "random_state" in params:
            kw["random_state"] = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at the default max_iter
            raw = cls(**kw).fit(X)
            std = cls(**kw).fit(Xs)
            rescaled = cls(**kw).fit(Xs * factors)
        invariant = np.array_equal(std.ranking_, rescaled.ranking_)
        acc_raw = evaluate_clustering(X[:, raw.get_support()], y, n_runs=10)["acc_mean"]
        acc_std = evaluate_clustering(Xs[:, std.get_support()], y, n_runs=10)["acc_mean"]
        kept_raw = ", ".join(map(str, raw.get_support(indices=True)))
        kept_std = ", ".join(map(str, std.get_support(indices=True)))
        print(f"| {cls.__name__} | {'yes' if invariant else 'no'} | {kept_raw} | {acc_raw:.2f} "
              f"| {kept_std} | {acc_std:.2f} |", flush=True)
    acc_all_raw = evaluate_clustering(X, y, n_runs=10)["acc_mean"]
    acc_all_std = evaluate_clustering(Xs, y, n_runs=10)["acc_mean"]
    print(f"| all 13 features | | | {acc_all_raw:.2f} | | {acc_all_std:.2f} |")


if __name__ == "__main__":
    main()
