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
