"""`v1919 bench --selfplay` (training/throughput.py): every path measures the same positions, the
compact one with the shipped compact network, and the table has a row per path."""
from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")


def test_each_path_searches_the_positions_and_the_table_names_them(tmp_path):
    from agents.arena.bench import real_positions
    from agents.learned import LearnedAgent
    from training.throughput import PATHS, compact_network, format_selfplay, measure, network_of, seat_values_network

    pos = real_positions(4, 2)
    seat = seat_values_network(str(tmp_path / "seat.zip"))
    net = LearnedAgent(path=network_of("lockstep, compact"))
    assert net.obs_layout == "compact" and net.seat_values and net.compiled_policy() is not None
    rows = []
    for path in PATHS:
        r = measure(path, "rule-free", pos, 0.01, iterations=4, seat_net=seat)
        assert r["searched"] >= len(pos) and r["searched_per_cpu_s"] > 0
        if path.startswith("lockstep"):
            assert 0 < r["forward_share"] < 1
        rows.append({**r, "workers": 1})
    per_pass = {r["path"]: r.get("rows_per_pass") for r in rows}     # one row a seat, or one a leaf
    assert per_pass["lockstep, compiled"] == 4 * per_pass["lockstep, value per seat"]
    assert per_pass["lockstep, compact"] == per_pass["lockstep, value per seat"]
    body = {"trunk": [128], "pi": [64], "vf": [64], "activation": "relu"}
    small = compact_network(str(tmp_path / "small.zip"), body)
    r = measure("lockstep, compact", "rule-free", pos, 0.01, iterations=4, compact_net=small)
    assert r["rows_per_pass"] == per_pass["lockstep, compact"] and LearnedAgent(path=small).compiled_policy() is not None
    lines = format_selfplay(rows)
    assert len(lines) == 2 + len(PATHS) and all(path in ln for path, ln in zip(PATHS, lines[2:]))


def test_the_bench_alternates_the_paths_in_rounds_and_keeps_the_median():
    from agents.arena.bench import real_positions
    from training.throughput import PATHS, SEARCHES, bench_selfplay, format_selfplay

    rows = bench_selfplay(real_positions(4, 2), 0.02, workers=(1,), iterations=4, quiet=True, rounds=2)
    assert [(r["search"], r["path"]) for r in rows] == [(s, p) for s in SEARCHES for p in PATHS]
    assert all(r["rounds"] == 2 and r["x"] > 0 for r in rows)
    assert [r["x"] for r in rows if r["path"] == PATHS[0]] == [1.0, 1.0]
    lines = format_selfplay(rows)
    assert "median of 2 alternating rounds" in lines[0] and len(lines) == 2 + len(rows)
