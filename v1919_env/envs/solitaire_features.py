"""The solitaire observation features (SOLO_FEATURES) shared by the Gymnasium and PettingZoo envs."""
from __future__ import annotations

import numpy as np

from v1919_env.game import Game

SOLO_REWARDS = ("vp", "win_loss")
"""'vp': each step pays the VP the player scored; 'win_loss': +1 / -1 at the end (won / lost)."""
SOLO_FEATURES = ("faction_uk", "faction_france", "faction_usa", "for_uk", "for_france", "for_usa",
                 "vp", "target_vp", "strength_uk", "strength_france", "strength_usa")
"""The `solitaire` observation vector, in order (VP, level and strengths divided by SOLO_SCALE)."""
SOLO_SCALE = 20.0
SOLO_HIGH = 50.0


def solo_features(g: Game) -> np.ndarray:
    """The `solitaire` observation vector of a solitaire game (SOLO_FEATURES): the controlled faction
    and the faction the decision is for, one-hot; the VP, the level and the three strengths / 20."""
    v = np.zeros(len(SOLO_FEATURES), np.float32)
    v[g.solo_faction] = 1.0
    if not g.is_over:
        v[3 + g.acting_for] = 1.0
    v[6] = g.player_vp / SOLO_SCALE
    v[7] = g.target_vp / SOLO_SCALE
    v[8:11] = np.asarray(g.faction_strengths(), np.float32) / SOLO_SCALE
    return np.minimum(v, SOLO_HIGH)


def solo_step_reward(g: Game, prev_vp: int, kind: str) -> tuple[float, int]:
    """(the player's reward for the last step, its VP now): the VP scored since `prev_vp` ('vp'),
    or +1 / -1 once the game is over, won / lost, and 0 before ('win_loss')."""
    vp = g.player_vp
    if kind == "vp":
        return float(vp - prev_vp), vp
    if not g.is_over:
        return 0.0, vp
    return (1.0 if g.won else -1.0), vp
