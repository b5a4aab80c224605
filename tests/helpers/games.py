"""Games the agent tests play: a whole game between agents, and a position in the middle of one."""
from __future__ import annotations

import numpy as np

from agents.play import observe_seat
from v1919_env.game import Game


def play(agents, num_players, seed, variant="standard", record=None):
    """A whole game; every agent must return a legal id (the actions go to `record`). Returns the game."""
    g = Game.new(num_players, seed=seed, variant=variant)
    for k, a in enumerate(agents):
        a.reset(seed * 10 + k)
    while not g.is_over:
        obs, mask = observe_seat(g, g.current_player)
        a = agents[g.current_player].act(obs, mask, game=g.clone())
        assert isinstance(a, int) and mask[a] == 1, (g.decision, a)
        if record is not None:
            record.append(a)
        g.step(a)
    return g


def mid_game(seed=3, decisions=150, num_players=4):
    """The position after `decisions` random actions, moved on to the next decision with a choice."""
    g = Game.new(num_players, seed=seed)
    r = np.random.default_rng(seed)
    for _ in range(decisions):
        a = g.legal_actions()
        g.step(a[r.integers(len(a))])
    while len(g.legal_actions()) < 2:
        g.step(g.legal_actions()[0])
    return g
