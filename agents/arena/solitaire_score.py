"""The solitaire player's score over seeded games: mean VP, win rates at levels with Wilson 95%
intervals, decisions per game (tools/solitaire_agents.py prints it for several agents; training
evaluates solitaire checkpoints with it)."""
from __future__ import annotations

import time

import numpy as np
from tqdm import tqdm

from .play import build_agents, run_game
from .tournament.stats import wilson_interval


def measure(spec: dict, games: int, seed0: int, solitaire: dict, levels=(20, 25), progress: bool = True) -> dict:
    """Play `games` solitaire games (seeds seed0..) with one agent (a seat spec, agents.arena.play): its final
    VP of every game, mean and standard error, and per level the games won with their Wilson 95%
    interval. A forfeit (the agent failed) raises RuntimeError."""
    vps, decisions, t0 = [], [], time.perf_counter()
    for k in tqdm(range(games), desc=spec["label"], leave=False, disable=not progress):
        agent = build_agents([spec])[0]
        rec = run_game([agent], [spec], num_players=1, seed=seed0 + k, solitaire=solitaire)
        agent.close()
        if rec["result"]["forfeit"] is not None:
            raise RuntimeError(f"{spec['label']} forfeited game {seed0 + k}: {rec['result']['forfeit']}")
        vps.append(rec["result"]["scores"][0]["total"])
        decisions.append(rec["result"]["decisions"])
    v = np.asarray(vps, float)
    wins = {level: int((v >= level).sum()) for level in levels}
    return {"agent": spec["label"], "games": games, "vp": [int(x) for x in v], "mean_vp": v.mean(),
            "se": v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else float("nan"), "max_vp": int(v.max()),
            "wins": wins, "win_intervals": {level: wilson_interval(w, games) for level, w in wins.items()},
            "decisions": float(np.mean(decisions)), "max_decisions": int(max(decisions)),
            "s_per_game": (time.perf_counter() - t0) / games,
            "ms_per_decision": 1000 * (time.perf_counter() - t0) / max(1, int(np.sum(decisions)))}
