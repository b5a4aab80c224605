"""A mixed ladder on a Ray cluster started by the test (issue 33): an in-process agent, our agents as
Python bot processes (the reference client) and the compiled C example bot, on duplicate deals; the
records are those of the same ladder played in this process, game by game (bots are seeded by the
arena), and the ladder report ranks all four."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[rllib]')")
pytestmark = pytest.mark.xdist_group("ray")       # one Ray cluster at a time (pytest -n: one worker runs them all)

from agents.arena.ladder import write_ladder  # noqa: E402
from agents.arena.tournament import config_from_dict, finished_games, play_games  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
def test_a_mixed_ladder_of_in_process_python_process_and_c_bots_on_ray(tmp_path, monkeypatch):
    import ray

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc) here")
    exe = tmp_path / "example_bot"
    subprocess.run([cc, "-O2", "-o", str(exe), str(ROOT / "agents/arena/process/example_bot.c")], check=True, timeout=120)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), str(ROOT / "tests")]))
    client = f"{sys.executable} -m agents.arena.process.client"
    cfg = config_from_dict({"name": "mixed", "num_players": 4, "games": 4, "seed": 19, "duplicate": True, "workers": 2,
                            "agents": ["rulebot",
                                       {"cmd": f"{client} greedy", "label": "greedy-proc"},
                                       {"cmd": f"{client} random", "label": "random-proc"},
                                       {"cmd": str(exe), "label": "c-bot", "memory_mb": 64}]})
    play_games(cfg, tmp_path / "here", workers=0, progress=False)
    (tmp_path / "ray").mkdir()                 # secret deals (bot processes): the same key deals the same games
    shutil.copy(tmp_path / "here" / "deal.key", tmp_path / "ray" / "deal.key")
    run = play_games(cfg, tmp_path / "ray", workers=2, progress=False, ray="local")
    assert run["played"] == 4 and not run["failed"] and not ray.is_initialized()

    def strip(recs):
        return sorted(({k: v for k, v in r.items() if k != "timing"} for r in recs), key=lambda r: r["game"])

    here, there = finished_games(cfg, tmp_path / "here"), finished_games(cfg, tmp_path / "ray")
    assert strip(there) == strip(here)
    assert all(r["result"]["forfeit"] is None for r in there)
    assert len({r["seed"] for r in there}) == 1                       # one deal, played from every seat
    rows = write_ladder(sorted(there, key=lambda r: r["game"]), cfg, tmp_path / "ray")
    assert sorted(r["agent"] for r in rows) == ["c-bot", "greedy-proc", "random-proc", "rulebot"]
    assert (tmp_path / "ray" / "ladder.md").exists()
