"""The policy network: an MLP baseline over the env's flat observation.

A shared trunk (config `policy.trunk`, e.g. [256]) reads the 2012 observation features once for
both heads, then separate policy (`policy.pi`) and value (`policy.vf`) layers. Sharing the wide first
layer is what keeps a 2012-wide input cheap on one CPU thread: with separate pi/vf MLPs the first
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
