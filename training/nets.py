"""Network bodies for the distilled policy, as SB3 features extractors, so a checkpoint stays a
MaskablePPO .zip that `learned` and `guided` load (the class is found by its import path).

`TrunkExtractor` (training.policy) is the shipped body: one ReLU layer of 256 over the 2,032-float
observation. `ResidualExtractor` is a wider, deeper one: a linear projection to `width`, then
`blocks` residual blocks x + W2 relu(W1 layernorm(x)), then a ReLU.
"""
from __future__ import annotations

import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class ResidualBlock(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, width)
        nn.init.zeros_(self.fc2.weight)          # each block starts as the identity
        nn.init.zeros_(self.fc2.bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.fc2(torch.relu(self.fc1(self.norm(x))))


class ResidualExtractor(BaseFeaturesExtractor):
    """Linear(obs, width), `blocks` residual blocks, ReLU: features of size `width`."""

    def __init__(self, observation_space, width: int = 512, blocks: int = 2):
        super().__init__(observation_space, width)
        self.inp = nn.Linear(observation_space.shape[0], width)
        self.blocks = nn.Sequential(*[ResidualBlock(width) for _ in range(blocks)])

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.blocks(self.inp(observations)))


def policy_kwargs(arch: dict) -> dict:
    """MaskablePPO policy_kwargs of an arch: {"body": "trunk", "trunk": [256], "pi": [128], "vf": [128]}
    or {"body": "residual", "width": 512, "blocks": 2, "pi": [], "vf": [128]}."""
    from .policy import TrunkExtractor

    if arch["body"] == "trunk":
        fx, fkw = TrunkExtractor, {"layers": list(arch["trunk"]), "activation": "relu"}
    else:
        fx, fkw = ResidualExtractor, {"width": int(arch["width"]), "blocks": int(arch["blocks"])}
    return {"features_extractor_class": fx, "features_extractor_kwargs": fkw,
            "net_arch": {"pi": list(arch["pi"]), "vf": list(arch["vf"])}, "activation_fn": nn.ReLU}
