"""Opponents of the learner: frozen copies of its past policies as batch policies of the vector env
(one forward pass for every game waiting on them), the current policy itself, and the league pool
that mixes them with the compiled baseline agents in the ratios of the config.

League (config `self_play.priority: pfsp`): the past snapshots are drawn in proportion to how often
they beat the learner, (1 - x) ** pfsp_power with x the learner's win rate in the games a snapshot
sat in (prioritized fictitious self-play, Vinyals et al. 2019, "hard" weighting). The win rates
come from the ended episodes' infos (`record`); a snapshot with no games yet counts as the
learner winning 1/num_players of them (one prior game)."""
from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import torch


class NeuralOpponent:
    """A frozen policy network as a batch policy: `act_batch(obs, masks)` runs one forward pass over
    the batch and samples from the masked distribution (its own seeded generator) or takes the most
    probable action (`deterministic`)."""

    def __init__(self, policy, label: str, deterministic: bool = False, seed: int = 0, frozen: bool = True):
        self.policy = policy
        if frozen:          # the live policy (frozen=False) keeps training; SB3 puts it in eval mode for rollouts
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


CURRENT = "current"     # the opponents' key of the current policy (the live weights, not a copy)


class OpponentPool:
    """The config's opponent ratios over compiled agents, the learner's past snapshots ("self") and
    its current policy ("current").

    `ratios` maps a compiled agent name, "self" or "current" to its share of the opponent seats; the
    "self" share is split over the last `pool_size` snapshots (the first one is taken at step 0, so
    self-play has an opponent from the start) uniformly or, with priority "pfsp", by how often each
    beats the learner (module docstring)."""

    def __init__(self, ratios: dict[str, float], pool_size: int, deterministic: bool = False, seed: int = 0,
                 priority: str = "uniform", pfsp_power: float = 2.0, num_players: int = 4):
        if priority not in ("uniform", "pfsp"):
            raise ValueError(f"priority: 'uniform' or 'pfsp', got {priority!r}")
        self.ratios = dict(ratios)
        self.pool_size = pool_size
        self.deterministic = deterministic
        self.seed = seed
        self.priority, self.pfsp_power, self.num_players = priority, float(pfsp_power), num_players
        self.snapshots: list[tuple[int, str | None, NeuralOpponent]] = []    # (step, checkpoint path, policy)
        self.results: dict[str, list[int]] = {}       # snapshot label (or "current") -> [learner wins, games]
        self.current: NeuralOpponent | None = None

    def set_current(self, policy) -> None:
        """The live policy the "current" share plays (its weights change as it trains)."""
        self.current = NeuralOpponent(policy, CURRENT, deterministic=self.deterministic, seed=self.seed + 7919,
                                      frozen=False)

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

    def record(self, infos) -> None:
        """Count the learner's wins against each snapshot and the current policy in the episodes that
        ended (vector env infos)."""
        for info in infos:
            if "winner" not in info:           # a running game, or an episode ended by an illegal action
                continue
            for label in set(info["opponents"]):
                if label.startswith("self@") or label == CURRENT:
                    r = self.results.setdefault(label, [0, 0])
                    r[0] += bool(info["winner"])
                    r[1] += 1

    def snapshot_weights(self) -> list[float]:
        """The share of each snapshot in the "self" seats (sums to 1; empty before the first snapshot)."""
        if not self.snapshots:
            return []
        if self.priority == "uniform":
            return [1.0 / len(self.snapshots)] * len(self.snapshots)
        w = []
        for _, _, o in self.snapshots:
            wins, games = self.results.get(o.label, (0, 0))
            x = (wins + 1.0 / self.num_players) / (games + 1.0)
            w.append(max(1.0 - x, 1e-3) ** self.pfsp_power)
        total = sum(w)
        return [v / total for v in w]

    def entries(self) -> tuple[list, list[float]]:
        """(opponents, weights) for VectorEnv.set_opponents."""
        opps, weights = [], []
        for name, r in self.ratios.items():
            if r <= 0:
                continue
            if name == "self":
                for (_, _, o), w in zip(self.snapshots, self.snapshot_weights()):
                    opps.append(o)
                    weights.append(r * w)
            elif name == CURRENT:
                if self.current is None:
                    raise RuntimeError("the pool has a 'current' share but no live policy (set_current)")
                opps.append(self.current)
                weights.append(r)
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

    def table(self) -> list[dict]:
        """Per snapshot: its step, the learner's wins and games against it, and its draw weight."""
        return [{"snapshot": o.label, "step": s, "learner_wins": self.results.get(o.label, [0, 0])[0],
                 "games": self.results.get(o.label, [0, 0])[1], "weight": round(w, 4)}
                for (s, _, o), w in zip(self.snapshots, self.snapshot_weights())]
