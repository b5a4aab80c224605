"""The policy network of `v1919 train-rllib` as an RLlib RLModule: a masked actor-critic MLP.

`MaskedPPOModule` (a `TorchRLModule` with RLlib's value-function and inference-only APIs) reads the
env's dict observation `{"observation": float32 (OBS_SIZE,), "action_mask": 0/1 (NUM_ACTIONS,)}`
(the PettingZoo/Gymnasium layout of v1919_env, `v1919_env.envs.pettingzoo_env.observation_space`;
the key "observations" of `v1919_env.compat.rllib_env`'s layout is read too):

    observation -> trunk (shared layers) -> pi layers -> NUM_ACTIONS logits, illegal ids set to MASKED
                                         -> vf layers -> 1 value       (not built when inference_only)

the same shape as the SB3 pipeline's policy (training/policy.py: `policy.trunk`, `.pi`, `.vf`,
`.activation` of the config), with SB3's orthogonal initialisation (hidden layers gain sqrt(2), the
policy head 0.01, the value head 1). An illegal id's logit is MASKED (the float32 minimum): its
probability is exactly 0 and log-probabilities, entropies and KL terms stay finite (no inf - inf).
The env runners build the module `inference_only` (no value layers; RLlib ships them the
inference part of the weights); the learner builds the whole of it.

It lives in `agents/` because the `learned` agent rebuilds it from checkpoints
(agents/learned_rllib.py: `RLModule.from_checkpoint` imports the class by its path) and `agents`
never imports `training`. Importing this module imports Ray and torch.
"""
from __future__ import annotations

import math

import gymnasium
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from torch import nn

OBS_KEY = "observation"
OBS_KEYS = (OBS_KEY, "observations")            # the env's layout, v1919_env.compat.rllib_env's
MASK_KEY = "action_mask"
MASKED = torch.finfo(torch.float32).min        # the logit of an illegal action
ACTIVATIONS = {"relu": nn.ReLU, "tanh": nn.Tanh}
DEFAULT_MODEL = {"trunk": [256], "pi": [128], "vf": [128], "activation": "relu"}
NON_INFERENCE = ("vf",)                         # the layers an inference_only module leaves out


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """`logits` with every id whose mask entry is 0 set to MASKED."""
    return logits.masked_fill(mask == 0, MASKED)


def _mlp(width: int, layers, activation: str) -> tuple[list[nn.Module], int]:
    mods: list[nn.Module] = []
    for w in layers:
        mods += [nn.Linear(width, int(w)), ACTIVATIONS[activation]()]
        width = int(w)
    return mods, width


def _init(layers: nn.Sequential, out_gain: float) -> None:
    """SB3's orthogonal initialisation: hidden layers gain sqrt(2), the last layer `out_gain`."""
    linears = [m for m in layers.modules() if isinstance(m, nn.Linear)]
    for k, m in enumerate(linears):
        nn.init.orthogonal_(m.weight, gain=out_gain if k == len(linears) - 1 else math.sqrt(2))
        nn.init.zeros_(m.bias)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """See the module docstring. model_config: trunk, pi, vf (lists of layer widths), activation."""

    def setup(self):
        # model_config: our keys (RLlib's algorithm configs add their own, e.g. vf_share_layers: not read)
        cfg = {k: (self.model_config or {}).get(k, v) for k, v in DEFAULT_MODEL.items()}
        if cfg["activation"] not in ACTIVATIONS:
            raise ValueError(f"MaskedPPOModule: activation must be one of {sorted(ACTIVATIONS)}, "
                             f"got {cfg['activation']!r}")
        space = self.observation_space
        keys = set(getattr(space, "spaces", {}))
        if not isinstance(space, gymnasium.spaces.Dict) or not any(keys == {k, MASK_KEY} for k in OBS_KEYS):
            raise ValueError(f"MaskedPPOModule: the observation space must be a Dict of {OBS_KEY!r} (or "
                             f"{OBS_KEYS[1]!r}) and {MASK_KEY!r}, got {space}")
        self.obs_key = next(k for k in OBS_KEYS if k in keys)
        n_actions = getattr(self.action_space, "n", None)
        if n_actions is None or space[MASK_KEY].shape != (n_actions,):
            raise ValueError(f"MaskedPPOModule: the action space must be Discrete(n) with an action mask of "
                             f"shape (n,), got {self.action_space} and {space[MASK_KEY].shape}")
        act = cfg["activation"]
        trunk, width = _mlp(int(space[self.obs_key].shape[0]), cfg["trunk"], act)
        self.trunk = nn.Sequential(*trunk)
        pi, w = _mlp(width, cfg["pi"], act)
        self.pi = nn.Sequential(*pi, nn.Linear(w, n_actions))
        _init(self.trunk, math.sqrt(2)) if trunk else None
        _init(self.pi, 0.01)
        if not self.inference_only:
            vf, w = _mlp(width, cfg["vf"], act)
            self.vf = nn.Sequential(*vf, nn.Linear(w, 1))
            _init(self.vf, 1.0)

    # ------------------------------------------------------------------ InferenceOnlyAPI
    def get_non_inference_attributes(self) -> list[str]:
        return list(NON_INFERENCE)

    # ------------------------------------------------------------------ forward passes
    def features(self, obs: dict) -> torch.Tensor:
        """The trunk's output for a batch of dict observations."""
        return self.trunk(obs[self.obs_key])

    def logits(self, obs: dict, features: torch.Tensor | None = None) -> torch.Tensor:
        """Masked action logits of a batch of dict observations."""
        if features is None:
            features = self.features(obs)
        return masked_logits(self.pi(features), obs[MASK_KEY])

    def _forward(self, batch: dict, **kwargs) -> dict:
        return {Columns.ACTION_DIST_INPUTS: self.logits(batch[Columns.OBS])}

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        features = self.features(obs)
        return {Columns.ACTION_DIST_INPUTS: self.logits(obs, features), Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict, embeddings=None) -> torch.Tensor:
        if self.inference_only:
            raise RuntimeError("MaskedPPOModule: an inference_only module has no value layers")
        if embeddings is None:
            embeddings = self.features(batch[Columns.OBS])
        return self.vf(embeddings).squeeze(-1)
