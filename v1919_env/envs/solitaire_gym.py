"""Gymnasium environment of the solitaire game: `v1919_env.solitaire_env(...)` or
`gymnasium.make("Versailles1919Solitaire-v4")`.

The learner is the solitaire player (EN:832-966): it controls one faction at a time (it switches to
the weakest faction whenever an issue is unsettled) and takes every decision the bot rules leave
to the player ("player's choice", EN:910), including those it takes for a bot faction; the two bots
play inside the compiled kernel, so every step is the learner's. The return is the player's VP
(`reward="vp"`: each step pays the VP it scored, so an episode's rewards add up to the final VP)
or the result (`reward="win_loss"`: +1 at the end when the VP reach `target_vp`, else -1).

Observations: `obs_mode="dict"` gives the core observation of seat 0 (`docs/observation.md`), the
action mask and a `solitaire` vector (SOLO_FEATURES: the controlled faction and the faction the
decision is for, one-hot; the VP, the level and the three faction strengths, each / 20);
`obs_mode="vector"` concatenates the observation and the `solitaire` vector. Any action id is a
valid input: an illegal one ends the episode with `illegal_penalty` and `info["illegal_reason"]`
(or raises with `illegal_action="raise"`); a value that is not an action id raises in either mode;
a finished episode's mask marks action 0 alone (`end_mask`): as in `Versailles1919Env`, whose
machinery this env reuses.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces

from v1919_env.actions import NUM_ACTIONS
from v1919_env.game import Game
from v1919_env.envs.gymnasium_env import Versailles1919Env
from v1919_env.envs.pettingzoo_env import OBS_HIGH
from v1919_env.envs.solitaire_features import SOLO_FEATURES, SOLO_HIGH, SOLO_REWARDS, solo_features, solo_step_reward

__all__ = ["SOLO_FEATURES", "SOLO_HIGH", "SOLO_REWARDS", "SolitaireEnv", "solitaire_env"]


class SolitaireEnv(Versailles1919Env):
    """The solitaire game for one learner (the player). faction: the faction the player starts with
    ('uk', 'france', 'usa'; None: the rules' default, the faction that goes last in a random order);
    target_vp: the level that wins (20 for a first game, EN:959-961)."""

    def __init__(self, faction: str | None = None, target_vp: int = 20, reward: str = "vp", obs_mode: str = "dict",
                 render_mode: str | None = None, variant: str = "standard", card_set: str | None = None,
                 illegal_action: str = "penalize", illegal_penalty: float = -1.0, obs_layout: str = "full"):
        if reward not in SOLO_REWARDS:
            raise ValueError(f"reward must be one of {SOLO_REWARDS}, got {reward!r}")
        self.solo_config = {"faction": faction, "target_vp": target_vp}
        super().__init__(num_players=1, seat=0, obs_mode=obs_mode, render_mode=render_mode,
                         variant=variant, card_set=card_set, illegal_action=illegal_action,
                         illegal_penalty=illegal_penalty, obs_layout=obs_layout)
        self.solo_reward = reward
        n = len(SOLO_FEATURES)
        if obs_mode == "dict":
            self.observation_space = spaces.Dict({
                "observation": spaces.Box(0.0, OBS_HIGH, (self._obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                "solitaire": spaces.Box(0.0, SOLO_HIGH, (n,), np.float32)})
        else:
            self.observation_space = spaces.Box(0.0, SOLO_HIGH, (self._obs_size + n,), np.float32)
        self._vp = 0

    PLAYERS = (1,)

    def _new_game(self, seed: int) -> Game:
        return Game.new(1, seed=seed, **self.config, **self.solo_config)

    def solo_features(self) -> np.ndarray:
        """The `solitaire` observation vector of the current game (SOLO_FEATURES)."""
        return solo_features(self.game)

    def _observe(self, seat: int):
        obs = super()._observe(seat)
        if self.obs_mode == "dict":
            obs["solitaire"] = self.solo_features()
            return obs
        return np.concatenate([obs, self.solo_features()])

    def _info(self) -> dict:
        info = super()._info()
        g = self.game
        info.update(faction=g.seat_name(g.solo_faction).lower(), player_vp=g.player_vp, target_vp=g.target_vp,
                    acting_for=None if g.is_over else g.seat_name(g.acting_for).lower())
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        out = super().reset(seed=seed, options=options)
        self._vp = self.game.player_vp
        return out

    def _reward(self, scores) -> float:
        """The step's reward (Versailles1919Env calls it after a legal step): the VP scored since the
        last step ('vp'), or +1 / -1 for a won / lost game at its end ('win_loss')."""
        r, self._vp = solo_step_reward(self.game, self._vp, self.solo_reward)
        return r


def solitaire_env(**kwargs) -> SolitaireEnv:
    """The solitaire game as a Gymnasium environment: `SolitaireEnv(**kwargs)`, the same as
    `gymnasium.make("Versailles1919Solitaire-v4", **kwargs)` without Gymnasium's wrappers. Options:
    `faction` (the starting faction, or None), `target_vp` (the level, 20), `reward` ('vp': each VP
    as it is scored; 'win_loss'), and those of the Gymnasium env (obs_mode, obs_layout, illegal_action, ...)."""
    return SolitaireEnv(**kwargs)
