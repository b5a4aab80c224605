"""`learned`: a trained policy from a checkpoint, acting with the action mask.

The checkpoint format is sb3-contrib's MaskablePPO `.zip` (what `MaskablePPO.save` writes and the
training scripts produce), trained on the Gymnasium env with `obs_mode="dict"` (observation and
action mask, the PettingZoo layout) or `"vector"` (the observation alone): the agent reads which
from the saved observation space. Illegal actions get zero probability (the mask is applied to the
logits). `deterministic=True` plays the most probable action; `False` samples from the masked
distribution with the agent's own seeded generator, so a seeded game replays exactly.

`path` may also be an RLlib checkpoint directory (`v1919 train-rllib`; agents/learned_rllib.py).
Without `path` the agent plays the shipped weights of the game's player count (`SHIPPED_WEIGHTS`,
made by `SHIPPED_CONFIGS`; docs/training.md): it loads the 4-player weights (`DEFAULT_WEIGHTS`) and
switches at the first decision of a game of another count.

torch and sb3-contrib are imported only when the agent is built (the core imports without them),
and torch is limited to one thread.
"""
from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.observe import OBS_SIZE, obs_slices
from v1919_env.core.observe_compact import COMPACT_SIZE
from v1919_env.envs.solitaire_features import SOLO_FEATURES, solo_features

from .base import Agent, register, require_game
from .seat import observe_seat

WEIGHTS_DIR = Path(__file__).parent / "weights"
DEFAULT_WEIGHTS = WEIGHTS_DIR / "league_4p.zip"
V1_WEIGHTS = WEIGHTS_DIR / "ppo_4p.zip"
"""The PPO weights shipped before the league (observation version 1): where league_4p.yaml starts."""
SHIPPED_WEIGHTS = {1: WEIGHTS_DIR / "solitaire.zip", 2: WEIGHTS_DIR / "league_2p.zip",
                   3: WEIGHTS_DIR / "league_3p.zip", 4: DEFAULT_WEIGHTS}
"""The `learned` agent's weights by player count (1: the solitaire game), and the configs that made them."""
SHIPPED_CONFIGS = {1: "configs/train/solitaire.yaml", 2: "configs/train/league_2p.yaml",
                   3: "configs/train/league_3p.yaml", 4: "configs/train/league_4p.yaml"}
COMPACT_WEIGHTS = WEIGHTS_DIR / "compact_4p.zip"
"""The 4-player network on the compact observation (version 2), with a value per seat: the shipped
4-player network distilled (configs/experiments/distill/distill_4p_compact.yaml), as strong alone;
`learned:path=...` and `guided:path=...` take it (docs/expert_iteration.md)."""
# observation sizes a checkpoint may have been trained on: this version's, and earlier versions'
# that are prefixes of it (version 1 ended before `seat_nation`)
PREFIX_SIZES = {OBS_SIZE: 2, obs_slices()["seat_nation"][0]: 1}
SOLO_OBS_SIZE = OBS_SIZE + len(SOLO_FEATURES)      # the solitaire rows of the vector env
# the compact layout (obs_layout='compact'): a checkpoint trained on it observes its own rows
COMPACT_SIZES = {COMPACT_SIZE: False, COMPACT_SIZE + len(SOLO_FEATURES): True}
logger = logging.getLogger(__name__)


@register("learned")
class LearnedAgent(Agent):
    """MaskablePPO checkpoint (`path`, a .zip); greedy (`deterministic`) or sampled actions."""

    def __init__(self, path: str | None = None, deterministic: bool = True, seed: int | None = None,
                 device: str = "cpu"):
        p = Path(path) if path is not None else DEFAULT_WEIGHTS
        self.rllib = None
        self.obs_layout = "full"
        if p.is_dir():              # an RLlib checkpoint (`v1919 train-rllib`): agents/learned_rllib.py
            from .learned_rllib import RLlibPolicy

            self.rllib = RLlibPolicy(p)
        elif not p.is_file():
            raise ValueError(f"no checkpoint file (or RLlib checkpoint directory) at {str(p)!r}")
        self.path = str(p)
        self.deterministic = bool(deterministic)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.solitaire = False
        self.device = device
        # without a path: the shipped weights of the game's player count, switched at the first
        # decision of a game of another count (act() needs the game for that)
        self.by_players = path is None
        self.players = 4 if self.by_players else None
        self._loaded: dict[int, tuple] = {}
        if self.rllib is not None:
            return
        self._load_zip(p)

    def _load_zip(self, p: Path) -> None:
        """Load a MaskablePPO checkpoint and check its spaces against this environment's."""
        import torch
        from sb3_contrib import MaskablePPO

        torch.set_num_threads(1)
        try:
            self.model = MaskablePPO.load(str(p), device=self.device)
        except Exception as e:         # a zip that is not a MaskablePPO checkpoint, a broken file
            raise ValueError(f"cannot load {str(p)!r} as a MaskablePPO checkpoint: {type(e).__name__}: {e}") from e
        space = self.model.observation_space
        if hasattr(space, "spaces"):
            if "observation" not in space.spaces:
                raise ValueError(f"{p.name}: dict observation space without an 'observation' key: {space}")
            shape, self.dict_obs = space.spaces["observation"].shape, True
        else:
            shape, self.dict_obs = space.shape, False
        # an observation version that only appended slices keeps the older one as its prefix
        # (docs/versioning.md): an older checkpoint is fed the prefix it was trained on;
        # a solitaire checkpoint (the vector env's num_players=1 rows) also reads the solitaire features
        self.obs_layout = "compact" if len(shape) == 1 and shape[0] in COMPACT_SIZES else "full"
        self.solitaire = len(shape) == 1 and (shape[0] == SOLO_OBS_SIZE or COMPACT_SIZES.get(shape[0], False))
        if len(shape) != 1 or (shape[0] not in PREFIX_SIZES and shape[0] not in COMPACT_SIZES
                               and not self.solitaire):
            raise ValueError(f"{p.name}: the policy observes shape {tuple(shape)}, this environment {(OBS_SIZE,)} "
                             f"(or a prefix of an earlier observation version: {sorted(PREFIX_SIZES)}; the "
                             f"solitaire game's {SOLO_OBS_SIZE}; or the compact layout's {sorted(COMPACT_SIZES)})")
        self.obs_size = int(shape[0])
        # a compact network reads the game to observe it in its own layout (the arena hands it the
        # seat's information set)
        self.needs_game = self.solitaire or self.by_players or self.obs_layout == "compact"
        n = getattr(self.model.action_space, "n", None)
        if n != NUM_ACTIONS:
            raise ValueError(f"{p.name}: the policy has {n} actions, this environment {NUM_ACTIONS}")
        self._torch = torch

    def _use_players(self, n: int) -> None:
        """Play the shipped weights of the n-player game (1: the solitaire), loaded once."""
        if n == self.players:
            return
        state = ("model", "dict_obs", "solitaire", "obs_size", "obs_layout", "path")
        self._loaded[self.players] = tuple(getattr(self, k) for k in state)
        if n not in self._loaded:
            p = SHIPPED_WEIGHTS.get(n)
            if p is None or not p.is_file():       # none shipped: the 4-player weights play it (they did before)
                logger.warning(f"learned: no shipped weights for the {n}-player game ({p}); the 4-player weights "
                               f"play it (train them: `v1919 train {SHIPPED_CONFIGS.get(n)}`, then path=...)")
                self._loaded[n] = self._loaded[4]
                for k, v in zip(state, self._loaded[n]):
                    setattr(self, k, v)
                self.players = n
                return
            self._load_zip(p)
            self.path = str(p)
        else:
            for k, v in zip(state, self._loaded[n]):
                setattr(self, k, v)
        self.players = n

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(self.seed if seed is None else seed)

    @property
    def seat_values(self) -> bool:
        """True when the value head gives every seat's value from one row (MAX_PLAYERS outputs, seats in
        the observation's order: the observer, then clockwise), not the row's own seat's alone."""
        return self.rllib is None and self.model.policy.value_net.out_features > 1

    def compiled_policy(self):
        """The loaded MaskablePPO policy as agents/compiled_net.py's CompiledPolicy (built once per
        network), or None when it is not a plain MLP over a flat observation (or an RLlib checkpoint)."""
        if self.rllib is not None:
            return None
        from .compiled_net import CompiledPolicy

        key = id(self.model)
        if getattr(self, "_compiled", (None,))[0] != key:
            self._compiled = (key, CompiledPolicy.from_policy(self.model.policy))
        return self._compiled[1]

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's masked action distribution (zero on every illegal id)."""
        if self.rllib is not None:
            return self.rllib.probabilities(observation, action_mask)
        observation = observation[..., :self.obs_size]
        obs = {"observation": observation, "action_mask": action_mask} if self.dict_obs else observation
        policy = self.model.policy
        with self._torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            dist = policy.get_distribution(tensor, action_masks=action_mask.astype(bool)[None])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[action_mask == 0] = 0.0
        return probs / probs.sum()

    def evaluate_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One forward pass over a batch: (probs [B, NUM_ACTIONS] float32, the masked policy, zero on
        illegal ids and all zero for a row whose mask is empty; values [B] float32, the value head's
        estimate of that row's seat's return, or [B, MAX_PLAYERS] for a network with `seat_values`). `observations` [B, OBS_SIZE] (or the checkpoint's
        prefix), `action_masks` [B, NUM_ACTIONS]. MaskablePPO checkpoints only (RLlib ones: ValueError)."""
        if self.rllib is not None:
            raise ValueError(f"{self.path}: evaluate_batch needs a MaskablePPO .zip checkpoint (value head), "
                             f"not an RLlib checkpoint")
        torch = self._torch
        observations = np.asarray(observations, np.float32)[..., :self.obs_size]
        action_masks = np.asarray(action_masks)
        obs = {"observation": observations, "action_mask": action_masks} if self.dict_obs else observations
        policy = self.model.policy
        with torch.no_grad():
            tensor, _ = policy.obs_to_tensor(obs)
            features = policy.extract_features(tensor)
            if policy.share_features_extractor:
                latent_pi, latent_vf = policy.mlp_extractor(features)
            else:
                latent_pi = policy.mlp_extractor.forward_actor(features[0])
                latent_vf = policy.mlp_extractor.forward_critic(features[1])
            logits = policy.action_net(latent_pi)
            head = policy.value_net
            values = (torch.nn.functional.linear(latent_vf, head.weight, head.bias) if head.out_features > 1
                      else head(latent_vf).reshape(-1))
            legal = torch.from_numpy(action_masks.astype(bool)).to(logits.device)
            probs = torch.softmax(logits.masked_fill(~legal, float("-inf")), dim=-1)
            probs = torch.nan_to_num(probs, nan=0.0)
        return probs.cpu().numpy().astype(np.float32), values.cpu().numpy().astype(np.float32)

    def act(self, observation, action_mask, game=None) -> int:
        if not action_mask.any():
            raise ValueError("no legal action in the mask")
        if self.by_players and game is not None:
            self._use_players(1 if game.solitaire else game.num_players)
        if self.obs_layout == "compact" and observation.shape[-1] not in COMPACT_SIZES:
            g = require_game(self, game)         # the full observation given: the compact one of the same seat
            observation = observe_seat(g, g.current_player, obs_layout="compact")[0]
        if self.solitaire and observation.shape[-1] in (OBS_SIZE, COMPACT_SIZE):
            observation = np.concatenate([observation, solo_features(require_game(self, game))])
        probs = self.action_probabilities(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(NUM_ACTIONS, p=probs))

    def close(self) -> None:
        self.model = None
