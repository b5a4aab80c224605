"""The policy network: an MLP baseline over the env's flat observation.

A shared trunk (config `policy.trunk`, e.g. [256]) reads the observation features once for
both heads, then separate policy (`policy.pi`) and value (`policy.vf`) layers. Sharing the wide first
layer is what keeps a 2000-wide input cheap on one CPU thread: with separate pi/vf MLPs the first
layer is computed twice in every forward and backward pass.
"""
from __future__ import annotations

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
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


class SeatValueHead(nn.Linear):
    """A value head with one output per seat, in the observation's order (the observer, then the
    others clockwise; MAX_PLAYERS outputs, those past the player count unused). Called as a module it
    gives the observer's own value alone (column 0), so SB3's PPO trains and reads it as a plain value
    head; `seats(latent)` gives them all, which is what the search reads (one row a leaf: the
    decider's), and agents/compiled_net.py and `LearnedAgent.evaluate_batch` read the weights directly."""

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        return super().forward(latent)[..., :1]

    def seats(self, latent: torch.Tensor) -> torch.Tensor:
        return super().forward(latent)


def use_seat_values(policy, seats: int = 4) -> None:
    """Give a MaskablePPO policy a SeatValueHead (every column starts as the old head's copy: each seat
    valued as the observer was) and rebuild its optimizer over the new parameters."""
    old = policy.value_net
    head = SeatValueHead(old.in_features, seats).to(old.weight.device)
    with torch.no_grad():
        head.weight.copy_(old.weight.expand(seats, -1))
        head.bias.copy_(old.bias.expand(seats))
    policy.value_net = head
    if getattr(policy, "optimizer", None) is not None:
        policy.optimizer = policy.optimizer_class(policy.parameters(), lr=policy.optimizer.param_groups[0]["lr"],
                                                  **policy.optimizer_kwargs)


class SeatValuesPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with a SeatValueHead (`seats` outputs): a checkpoint that the search
    evaluates once a leaf, from the decider's row, instead of once a seat."""

    def __init__(self, *args, seats: int = 4, **kwargs):
        self.seats = seats
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        use_seat_values(self, self.seats)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "seats": self.seats}


def with_seat_values(model, seats: int = 4):
    """A MaskablePPO model turned into one with a value per seat (SeatValuesPolicy), its weights kept
    (the new head starts as copies of the old: `use_seat_values`); saved, it loads as such."""
    use_seat_values(model.policy, seats)
    model.policy_class = SeatValuesPolicy
    model.policy_kwargs = {**model.policy_kwargs, "seats": seats}
    return model
