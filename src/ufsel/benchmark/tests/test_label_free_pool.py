"""The development pool's scripts: the grid, the leave-one-out choice and the nested verdict rule."""

import sys

from ufsel.benchmark.tests._helpers import REPO, load_benchmark_script


def _load(name):
    folder = str(REPO / "benchmarks" / "label_free")
    if folder not in sys.path:  # the scripts import each other by name
        sys.path.insert(0, folder)
    return load_benchmark_script(f"label_free/{name}")


def test_grid_keeps_at_least_one_feature():
    pool = _load("pool")
    assert pool.grid_counts(8) == [1] * 20  # 0.5 % to 10 % of 8 features: one each
    assert pool.grid_counts(24)[:9] == [1] * 8 + [2] and pool.grid_counts(24)[-1] == 3
    assert pool.grid_counts(1000)[0] == 5 and pool.grid_counts(1000)[-1] == 100


def _row(name, passes, support, gain, good):
    """A pool row as evaluate_pool caches it: the agreement test passes or not, no
    relevance test, the recommended method chosen with its record."""
    return {"dataset": name, "p": 0.01 if passes else 0.5, "z": 2.5 if passes else 0.0,
            "testable": True, "relevance": None, "method": "mcfs", "recommended": "mcfs",
            "recommended_gain": gain, "test_passes": passes, "support": support,
            "predicted_gain": gain, "acc_at_k": 0.8 if good else 0.5, "random_p90_at_k": 0.6}


def test_thresholds_reach_the_precision_goal_and_are_chosen_without_the_held_out_set():
    evaluate = _load("evaluate_pool")
    # passing tests with a weak record are wrong half the time; with a strong one, right
    rows = ([_row(f"s{i}", True, 0.95, 0.05, True) for i in range(10)]
            + [_row(f"w{i}", True, 0.4, 0.01, i % 2 == 0) for i in range(10)]
            + [_row(f"n{i}", False, 0.9, 0.05, False) for i in range(5)])
    s, g = evaluate.choose_thresholds(rows)
    right, said, truth = evaluate._prec_recall(rows, s, g)
    assert said == right == 10 and truth == 15  # precision 100 %, the weak ones withheld
    assert s > 0.4
    nested = evaluate.nested_verdicts(rows)
    assert all(nested[f"s{i}"][0] for i in range(10))
    assert not any(nested[f"w{i}"][0] or nested[f"n{i}"][0] for i in range(5))


def test_choice_strategies_learn_only_from_the_other_data_sets():
    choice = _load("choice_lodo")
    from ufsel.model_selection import META_FEATURES

    def row(name, x, best):
        acc = {"spec": 0.6, "mcfs": 0.6}
        acc[best] = 0.9
        return {"dataset": name, "source": "S", **{f: x for f in META_FEATURES},
                "random": 0.5, "acc": acc}

    table = [row(f"a{i}", 0.0 + 0.01 * i, "spec") for i in range(6)] + \
            [row(f"b{i}", 5.0 + 0.01 * i, "mcfs") for i in range(6)]
    out = choice.evaluate(table, ["oracle", "knn-5", "pairwise-5", "fixed"], ["mcfs", "spec"])
    assert all(r["beats"] and r["gap"] == 0 for s in ("oracle", "knn-5", "pairwise-5")
               for r in out[s])
    # one method for every data set cannot be right on both groups
    assert sum(r["gap"] > 0 for r in out["fixed"]) >= 6


def test_retraining_reads_a_bench_results_table(tmp_path):
    train = _load("train_recommender")
    head = "dataset,method,protocol,tuning,metric,status,value,n_features\n"
    rows = ["toy,mcfs,n_classes,defaults,acc,ok,0.8,1", "toy,mcfs,n_classes,defaults,acc,ok,0.6,2",
            "toy,mcfs,label_free,defaults,acc,ok,0.1,1",  # another protocol: not read
            "toy,spec,n_classes,tuned,acc,ok,0.9,1",  # tuned with labels: not read
            "toy,spec,n_classes,defaults,nmi,ok,0.9,1", "toy,random,-,-,acc,ok,0.5,1",
            "nolabels,mcfs,n_classes,defaults,acc,ok,0.7,1"]  # no random subsets: left out
    path = tmp_path / "results.csv"
    path.write_text(head + "\n".join(rows) + "\n")
    assert train.bench_accuracies(path) == {"toy": {"mcfs": 0.7, "random": 0.5}}
