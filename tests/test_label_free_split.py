"""The development / validation split of the label-free route, and the benchmark that reads it."""

from pathlib import Path

from ufsel.benchmark.tests._helpers import REPO, load_benchmark_script


def _script():
    return load_benchmark_script("label_free/evaluate_route")


def test_the_benchmark_reads_the_committed_split():
    mod = _script()
    assert Path(mod.SPLIT_FILE) == REPO / "benchmarks" / "label_free" / "split.toml"
    split = mod.read_split()  # refuses a file that is not its seeded draw
    assert split == {**mod.draw_split(split["kinds"], split["seed"]),
                     "kinds": split["kinds"], "seed": split["seed"]}


def test_split_is_stratified_and_covers_the_leaderboard():
    mod = _script()
    split = mod.read_split()
    dev, val = set(split["development"]), set(split["validation"])
    assert not dev & val
    spec = mod._toml(REPO / "experiments" / "leaderboard.toml")
    board = {d if isinstance(d, str) else d["label"] for d in spec["datasets"]}
    assert dev | val == board and len(board) == 34
    for names in split["kinds"].values():
        in_dev = len(dev & set(names))
        assert in_dev == len(names) // 2  # each kind split, the extra one to validation


def test_a_tampered_split_is_refused(tmp_path):
    import pytest

    mod = _script()
    text = (REPO / "benchmarks" / "label_free" / "split.toml").read_text()
    split = mod.read_split()
    a, b = split["development"][0], split["validation"][0]
    head, tail = text.split("[split]")
    tail = tail.replace(f'"{a}"', '"@@"').replace(f'"{b}"', f'"{a}"').replace('"@@"', f'"{b}"')
    bad = tmp_path / "split.toml"
    bad.write_text(head + "[split]" + tail)  # a data set moved between the halves
    with pytest.raises(SystemExit, match="seeded draw"):
        mod.read_split(bad)
