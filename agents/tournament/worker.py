"""One tournament game in a worker process: the job (seeds, seating) and its execution.

A game is fully defined by the config and its index: the seating comes from the schedule, and
the game seed and the agents' seeds are drawn from `SeedSequence([seed, index])`, so a game plays
the same whichever worker runs it and whenever. Workers are spawn-safe (everything they need
travels in the job), build each agent once and reuse it (`reset(seed)` before every game), and
keep torch to one thread.
"""
from __future__ import annotations

import importlib
import json
import os
import sys

import numpy as np

from .schedule import seating

_AGENTS: dict[str, object] = {}          # per process: seat spec (as JSON) -> agent, built on first use


def game_seeds(base_seed: int, game_index: int, n_seats: int) -> tuple[int, list[int]]:
    """(game seed, one agent seed per seat) for game `game_index` of a tournament."""
    words = np.random.SeedSequence([int(base_seed), int(game_index)]).generate_state(2 + n_seats, np.uint32)
    game_seed = (int(words[0]) << 30 | int(words[1])) & ((1 << 62) - 1)
    return game_seed, [int(w) for w in words[2:]]


def make_job(cfg, game_index: int) -> dict:
    """Everything a worker needs to play game `game_index` of the tournament `cfg`."""
    seats = seating(game_index, len(cfg.agents), cfg.num_players)
    game_seed, agent_seeds = game_seeds(cfg.seed, game_index, cfg.num_players)
    return {"game_index": game_index, "seed": game_seed, "agent_seeds": agent_seeds,
            "specs": [cfg.agents[a] for a in seats], "num_players": cfg.num_players, "variant": cfg.variant,
            "negotiation": cfg.negotiation, "card_set": cfg.card_set, "modules": cfg.modules,
            "tournament": {"name": cfg.name, "fingerprint": cfg.fingerprint()}}


def init_worker() -> None:
    """Process initializer: one thread for the numeric libraries."""
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def play_job(job: dict) -> dict:
    """Play the game of a job (agents built once per process) and return its record."""
    from ..base import make_agent
    from ..play import run_game

    for m in job["modules"]:
        importlib.import_module(m)
    agents = []
    for spec in job["specs"]:
        key = json.dumps(spec, sort_keys=True)
        if key not in _AGENTS:
            _AGENTS[key] = make_agent(spec["agent"], **spec["options"])
            if "torch" in sys.modules:          # an agent may have just imported it
                sys.modules["torch"].set_num_threads(1)
        agents.append(_AGENTS[key])
    return run_game(agents, job["specs"], num_players=job["num_players"], seed=job["seed"],
                    variant=job["variant"], negotiation=job["negotiation"], card_set=job["card_set"],
                    agent_seeds=job["agent_seeds"], game_index=job["game_index"], tournament=job["tournament"])
