"""Opponents of the learner: frozen copies of its past policies as batch policies of the vector env
(one forward pass for every game waiting on them), and the pool that mixes them with the compiled
baseline agents in the ratios of the config."""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch


class NeuralOpponent:
    """A frozen policy network as a batch policy: `act_batch(obs, masks)` runs one forward pass over
    the batch and samples from the masked distribution (its own seeded generator) or takes the most
    probable action (`deterministic`)."""

    def __init__(self, policy, label: str, deterministic: bool = False, seed: int = 0):
        self.policy = policy
        self.policy.set_training_mode(False)
        for p in self.policy.parameters():
            p.requires_grad_(False)
        self.label = label
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    @classmethod
    def from_model(cls, model, label: str, **kwargs) -> "NeuralOpponent":
        """A frozen copy of a MaskablePPO model's current policy."""
        return cls(copy.deepcopy(model.policy), label, **kwargs)

    @classmethod
    def from_checkpoint(cls, path, label: str | None = None, **kwargs) -> "NeuralOpponent":
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(str(path), device="cpu")
        return cls(model.policy, label or Path(path).stem, **kwargs)

    def logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Logits of a batch, -inf on illegal ids (the policy's own layers, without building a
        distribution object: this runs for every opponent decision)."""
        p = self.policy
        with torch.no_grad():
            features = p.extract_features(torch.as_tensor(obs), p.pi_features_extractor)
            lg = p.action_net(p.mlp_extractor.forward_actor(features)).numpy()
        lg[masks == 0] = -np.inf
        return lg

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        lg = self.logits(obs, masks)
        if not self.deterministic:
            lg = lg + self.rng.gumbel(size=lg.shape)      # Gumbel-max: a sample of the softmax
        return np.argmax(lg, axis=1)


class OpponentPool:
    """The config's opponent ratios over compiled agents and the learner's past snapshots.

    `ratios` maps a compiled agent name or "self" to its share of the opponent seats; the "self"
    share is split evenly over the last `pool_size` snapshots (the first one is taken at step 0,
    so self-play has an opponent from the start)."""

    def __init__(self, ratios: dict[str, float], pool_size: int, deterministic: bool = False, seed: int = 0):
        self.ratios = dict(ratios)
        self.pool_size = pool_size
        self.deterministic = deterministic
        self.seed = seed
        self.snapshots: list[tuple[int, str | None, NeuralOpponent]] = []    # (step, checkpoint path, policy)

    def add_snapshot(self, model, step: int, path: str | None = None) -> None:
        """Freeze the model's current policy into the pool (the oldest snapshot drops out)."""
        opp = NeuralOpponent.from_model(model, f"self@{step}", deterministic=self.deterministic,
                                        seed=self.seed + len(self.snapshots) + step)
        self.snapshots.append((step, path, opp))
        self.snapshots = self.snapshots[-self.pool_size:]

    def load_snapshots(self, entries: list[tuple[int, str]]) -> None:
        """Reload snapshots (step, checkpoint path) saved by an earlier run (--resume)."""
        for step, path in entries[-self.pool_size:]:
            opp = NeuralOpponent.from_checkpoint(path, f"self@{step}", deterministic=self.deterministic,
                                                 seed=self.seed + step)
            self.snapshots.append((step, path, opp))

    def entries(self) -> tuple[list, list[float]]:
        """(opponents, weights) for VectorEnv.set_opponents."""
        opps, weights = [], []
        for name, r in self.ratios.items():
            if r <= 0:
                continue
            if name == "self":
                for _, _, o in self.snapshots:
                    opps.append(o)
                    weights.append(r / len(self.snapshots))
            else:
                opps.append(name)
                weights.append(r)
        return opps, weights

    def apply(self, venv) -> None:
        """Set the vector env's opponents for the episodes that start from now on."""
        opps, weights = self.entries()
        venv.set_opponents(opps, weights)

    def state(self) -> list[tuple[int, str | None]]:
        return [(s, p) for s, p, _ in self.snapshots]
