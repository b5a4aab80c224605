"""The policy network: an MLP baseline over the env's flat observation.

A shared trunk (config `policy.trunk`, e.g. [256]) reads the observation features once for
both heads, then separate policy (`policy.pi`) and value (`policy.vf`) layers. Sharing the wide first
layer is what keeps a 2000-wide input cheap on one CPU thread: with separate pi/vf MLPs the first
layer is computed twice in every forward and backward pass.
"""
from __future__ import annotations

import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

ACTIVATION = {"relu": nn.ReLU, "tanh": nn.Tanh}


class TrunkExtractor(BaseFeaturesExtractor):
    """Linear layers + activation over the flat observation, shared by the policy and value heads."""

    def __init__(self, observation_space, layers: list[int], activation: str = "relu"):
        super().__init__(observation_space, layers[-1] if layers else observation_space.shape[0])
        mods: list[nn.Module] = []
        width = observation_space.shape[0]
        for w in layers:
            mods += [nn.Linear(width, w), ACTIVATION[activation]()]
            width = w
        self.net = nn.Sequential(*mods) if mods else nn.Flatten()

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


def policy_kwargs(cfg: dict) -> dict:
    """MaskablePPO policy_kwargs from the config's `policy` section."""
    p = cfg["policy"]
    return {"features_extractor_class": TrunkExtractor,
            "features_extractor_kwargs": {"layers": list(p["trunk"]), "activation": p["activation"]},
            "net_arch": {"pi": list(p["pi"]), "vf": list(p["vf"])},
            "activation_fn": ACTIVATION[p["activation"]]}


class InitError(ValueError):
    """A checkpoint whose weights cannot start this policy (config `init_from`)."""


def init_from_checkpoint(policy, path) -> dict:
    """Copy a MaskablePPO checkpoint's policy weights into `policy` (config `init_from`).

    Every parameter must have the same shape, except the first layer's input width: a checkpoint
    trained on an earlier observation version that this one extends at the end (docs/versioning.md)
    gets its columns copied and the appended inputs start at weight 0, so the network plays as it
    did. Returns {"copied": n, "widened": [names]}; InitError names the parameter that does not fit."""
    from sb3_contrib import MaskablePPO

    try:
        src = MaskablePPO.load(str(path), device="cpu").policy.state_dict()
    except Exception as e:
        raise InitError(f"init_from: cannot load {str(path)!r} as a MaskablePPO checkpoint: "
                        f"{type(e).__name__}: {e}") from e
    dst = policy.state_dict()
    if set(src) != set(dst):
        raise InitError(f"init_from: {path}: the network differs (parameters only here: "
                        f"{sorted(set(dst) - set(src))[:4]}, only there: {sorted(set(src) - set(dst))[:4]}); "
                        f"use the same policy section as the checkpoint's run")
    widened = []
    with torch.no_grad():
        for name, d in dst.items():
            s = src[name]
            if s.shape == d.shape:
                d.copy_(s)
            elif s.dim() == 2 and s.shape[0] == d.shape[0] and s.shape[1] < d.shape[1]:
                d.zero_()
                d[:, :s.shape[1]] = s
                widened.append(name)
            else:
                raise InitError(f"init_from: {path}: parameter {name} has shape {tuple(s.shape)}, this policy "
                                f"{tuple(d.shape)}")
    policy.load_state_dict(dst)
    return {"copied": len(dst), "widened": widened}
