"""Fit a network to teacher shards (training.selfplay): the policy to the search's root visit
distributions (or its chosen move), the value head to the seats' discounted outcomes.

    python -m training.fit CONFIG.yaml [--data DIR ...] [--out DIR] [--evaluate GAMES]

The network starts from `init` (a MaskablePPO .zip; None: the shipped weights for the player
count) with its own body, or with `arch` a new body from scratch (training.nets). Loss: the
cross-entropy of the masked policy to the targets + value_coef x the squared error of the value
head to gamma ** left x outcome; Adam, the learning rate decaying linearly to 0, optional weight
decay. The held-out shards (whole games) give the figures before and after every epoch: KL(target
|| policy), the cross-entropy, top-1 agreement with the most visited move, and the value MSE.

The result is `<out>/checkpoints/net.zip` (`learned:path=...`, `guided:path=...`) with
`<out>/config.yaml` giving the player count and the reward (agents.guided.checkpoint_facts), and
`<out>/fit.json`. With --evaluate N: the network alone against three rule bots over N games, deals
rotated through every seat (training.head_to_head; Wilson 95%).
"""
from __future__ import annotations

import argparse
import json
import logging
import time
from pathlib import Path
from typing import Annotated, ClassVar, Literal

import numpy as np
import yaml
from pydantic import AfterValidator, Field, field_validator, model_validator

from v1919_env.config_schema import Strict
from v1919_env.core.observe_compact import COMPACT_SIZE

from agents.calibration import platt

from . import head_to_head, shards
from .head_to_head import EVAL_SEED
from .runs import out_dir, resolve_data
from .config import SEED_MAX, Layers, device_of_this_machine
from .selfplay import RUN_NAME, ConfigError, read_model

logger = logging.getLogger(__name__)
ILLEGAL_LOGIT = -1.0e9


class Arch(Strict):
    """A new body from scratch: a trunk of layers, or residual blocks of `width`; then the heads."""
    body: Literal["trunk", "residual"] = "trunk"
    trunk: Layers = [256]
    width: int = Field(512, ge=8)
    blocks: int = Field(2, ge=0)
    pi: Layers = [128]
    vf: Layers = [128]


class FitConfig(Strict):
    """A fit of a network to self-play shards (see the module docstring)."""
    KIND: ClassVar[str] = "fit"
    name: str | None = RUN_NAME
    seed: int = Field(0, ge=0, le=SEED_MAX, description=f"an integer in 0..{SEED_MAX}")
    data: list[str] = Field(default_factory=list)      # self-play data directories
    init: str | None = None                           # start from this checkpoint (None: the shipped weights)
    arch: Arch | None = None                          # a new body from scratch instead (init gives the spaces)
    obs_layout: Literal["full", "compact"] | None = None   # the new body's observation (arch only; None: init's)
    target: Literal["visits", "best", "action", "improved"] = "visits"   # the visits, the most visited
                                                     # move, the move the teacher played (action), or
    improved_scale: float = Field(0.1, gt=0)         # the network's prior improved by the root's values
    improved_prior: Literal["network", "recorded"] = "network"   # that prior: the starting network's policy
                                                     # on the observation, or the search's recorded root priors
    max_records: int | None = Field(None, ge=1)       # the newest records of the train split
    epochs: int = Field(2, ge=1)
    batch_size: int = Field(256, ge=1)
    learning_rate: float = Field(3.0e-4, gt=0)
    weight_decay: float = Field(0.0, ge=0)
    value_coef: float = Field(0.5, ge=0)
    gamma: float = Field(0.998, ge=0, le=1)
    seat_values: bool = False                         # give the network a value head per seat (one row a leaf
                                                     # for the search; targets: every seat's outcome)
    train: Literal["all", "value"] = "all"            # every weight, or the value path alone (the policy kept)
    device: Annotated[str, AfterValidator(device_of_this_machine)] = Field(
        "cpu", description="a torch device of this machine: cpu, auto, cuda or cuda:N")

    @field_validator("init")
    @classmethod
    def _init(cls, v):
        if v is not None and not Path(v).is_file():
            raise ValueError(f"no checkpoint file at {v!r}")
        return v

    @model_validator(mode="after")
    def _layout_needs_arch(self):
        if self.obs_layout is not None and self.arch is None:
            raise ValueError("obs_layout: a network's observation is fixed by its weights; give it only with "
                             "arch (a new body), or drop it")
        return self


def load_config(path: str | Path | None = None, raw: dict | None = None, **overrides) -> FitConfig:
    return read_model(FitConfig, path, raw, overrides)


# ----------------------------------------------------------------------------- data
def load_data(dirs: list[str], split: str, max_records: int | None = None, keys=shards.RECORD_KEYS,
              obs_layout: str | None = None) -> dict:
    """The records of `split` in every directory, concatenated (only the arrays `keys`; game ids made
    unique across directories); with "prior" among them also, per record, the teacher's `bot_prior` and `prior_temperature` (its config).
    With `obs_layout`, `obs` observed again in it from the recorded positions (shards.load)."""
    parts = [shards.load(d, split, max_records=max_records, keys=keys, obs_layout=obs_layout) for d in dirs]
    if "prior" in keys:
        for d, p in zip(dirs, parts):
            search = shards.read_meta(d)["config"]["search"]
            n = len(p["prior"])
            p["bot_prior"] = np.full(n, float(search.get("bot_prior", 0.0)), np.float32)
            p["prior_temperature"] = np.full(n, float(search.get("prior_temperature", 1.0)), np.float32)
    if "game" in keys:        # game ids count from 0 in every directory: made unique (parity kept)
        for k, p in enumerate(parts):
            p["game"] = p["game"] + (np.int64(k) << 40)
    return {k: shards.concatenate_freeing(parts, k) for k in list(parts[0])}


def fit_keys(kind: str, seat_values: bool = False) -> tuple[str, ...]:
    """The record arrays a fit to `kind` targets reads (the priors and the root's own value for
    "improved" only; the mean values for "best" and "improved"; every seat's outcome for a value
    head per seat)."""
    return tuple(k for k in shards.RECORD_KEYS
                 if (k != "prior" or kind == "improved") and (k != "q" or kind in ("best", "improved"))) + (
        ("root_value",) if kind == "improved" else ()) + (("outcomes",) if seat_values else ())


def network_prior(prior: np.ndarray, mask: np.ndarray, bot_prior: np.ndarray, prior_temperature: np.ndarray):
    """The network's own policy at the root, recovered from the search's priors: the rule bot's share
    (`bot_prior` on the highest prior, agents/guided.py) taken off, the flattening (prior ** (1 / t))
    undone; rows renormalized over the legal moves."""
    p = prior.astype(np.float64) * mask
    b = bot_prior.astype(np.float64)[:, None]
    if (b > 0).any():
        top = p.argmax(1)
        bot = np.zeros_like(p)
        bot[np.arange(len(p)), top] = 1.0
        p = np.clip((p - b * bot) / np.maximum(1.0 - b, 1e-9), 0.0, None)
    p = p ** prior_temperature.astype(np.float64)[:, None]
    p *= mask
    z = p.sum(1, keepdims=True)
    return np.where(z > 0, p / np.where(z > 0, z, 1.0), mask / np.maximum(mask.sum(1, keepdims=True), 1))


def improved_policy(data: dict, sl, scale: float = 0.1, c_visit: float = 50.0, prior_fn=None) -> np.ndarray:
    """The network's prior improved by what the search found (Gumbel MuZero's completed-Q target,
    Danihelka et al. 2022): softmax(log prior + (c_visit + max visits) x scale x q) over the legal
    moves, where q is a visited child's mean value for the decider and, for an unvisited one, the
    paper's v_mix = (v + N / sum_visited prior x sum_visited prior x q) / (1 + N), v the root's own
    evaluation (`root_value`, recorded since the Gumbel root) and N the root's visits; records
    without it (NaN: older shards) complete with the visit-weighted mean of the visited q. With the
    Gumbel root (`root=gumbel`) the visited moves are the sampled, considered ones, each with its own
    q. Where the search saw nothing, the prior stays. The prior: prior_fn(sl) (the starting
    network's masked policy), or the one recovered from the search's recorded root priors
    (network_prior)."""
    mask = data["mask"][sl]
    n = data["visits"][sl].astype(np.float64)
    q = data["q"][sl].astype(np.float64)
    if prior_fn is not None:
        prior = prior_fn(sl).astype(np.float64)
    else:
        prior = network_prior(data["prior"][sl], mask, data["bot_prior"][sl], data["prior_temperature"][sl])
    total = n.sum(1, keepdims=True)
    v = (n * q).sum(1, keepdims=True) / np.maximum(total, 1.0)
    rv = data["root_value"][sl].astype(np.float64)[:, None] if "root_value" in data else np.full_like(v, np.nan)
    seen = n > 0
    pv = (prior * seen).sum(1, keepdims=True)
    mix = (rv + total / np.maximum(pv, 1e-12) * (prior * seen * q).sum(1, keepdims=True)) / (1.0 + total)
    mix = np.where(pv > 0, mix, rv)
    v = np.where(np.isfinite(rv), mix, v)
    qc = np.where(seen, q, v)
    logits = np.log(np.maximum(prior, 1e-12)) + (c_visit + n.max(1, keepdims=True)) * scale * qc
    logits = np.where(mask, logits, -np.inf)
    logits -= logits.max(1, keepdims=True)
    e = np.exp(logits)
    return (e / e.sum(1, keepdims=True)).astype(np.float32)


class PolicyTargets:
    """[R, NUM_ACTIONS] float32 policy targets, made batch by batch (`targets[sl]`) from the uint16
    visit counts, so a buffer of a million records needs no dense float copy: the visit distribution,
    one-hot on the most visited move (ties: the higher mean value), one-hot on the recorded move
    played (`action`; with the Gumbel root: sequential halving's pick, the best-scored of the most
    visited), or the network's prior improved by the root's values (improved_policy)."""

    def __init__(self, data: dict, kind: str, chunk: int = 65536, scale: float = 0.1, prior_fn=None):
        if kind not in ("visits", "best", "action", "improved"):
            raise ValueError(f"target: visits, best, action or improved, got {kind!r}")
        self.kind, self.visits, self.width = kind, data["visits"], data["visits"].shape[1]
        self.data, self.scale, self.prior_fn = data, scale, prior_fn
        self.best = None
        if kind == "best":
            best = np.empty(len(self.visits), np.int64)
            for k in range(0, len(best), chunk):
                sl = slice(k, k + chunk)
                score = self.visits[sl].astype(np.float64) + 1e-3 * np.tanh(data["q"][sl].astype(np.float64))
                score[~data["mask"][sl]] = -np.inf
                best[sl] = score.argmax(1)
            self.best = best
        elif kind == "action":
            self.best = data["action"].astype(np.int64)

    def __len__(self) -> int:
        return len(self.visits)

    def __getitem__(self, sl) -> np.ndarray:
        if self.kind == "visits":
            v = self.visits[sl].astype(np.float32)
            return v / np.maximum(v.sum(-1, keepdims=True), 1.0)
        if self.kind == "improved":
            return improved_policy(self.data, sl, self.scale, prior_fn=self.prior_fn)
        b = self.best[sl]
        out = np.zeros((len(b), self.width), np.float32)
        out[np.arange(len(b)), b] = 1.0
        return out


def targets(data: dict, kind: str, scale: float = 0.1, prior_fn=None) -> PolicyTargets:
    """The policy targets of `data` (PolicyTargets: index it by batch)."""
    return PolicyTargets(data, kind, scale=scale, prior_fn=prior_fn)


def policy_prior_fn(policy, data: dict, n_obs: int, device="cpu"):
    """sl -> the masked policy of a frozen copy of `policy` on the records sl (float32 rows)."""
    import copy

    import torch

    frozen = copy.deepcopy(policy)
    frozen.set_training_mode(False)

    def prior(sl) -> np.ndarray:
        with torch.no_grad():
            obs = torch.from_numpy(data["obs"][sl, :n_obs].astype(np.float32)).to(device)
            logits = outputs(frozen, obs)[0]
            mask = torch.from_numpy(data["mask"][sl]).to(device)
            return torch.softmax(logits.masked_fill(~mask, ILLEGAL_LOGIT), dim=-1).cpu().numpy()

    return prior


# ----------------------------------------------------------------------------- the network
def make_model(cfg: FitConfig, num_players: int):
    """A MaskablePPO model: `init` (or the shipped weights), or a new `arch` body on its spaces."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.learned import DEFAULT_WEIGHTS, SHIPPED_WEIGHTS

    torch.set_num_threads(1)
    init = cfg.init or str(SHIPPED_WEIGHTS[num_players] if num_players != 4 else DEFAULT_WEIGHTS)
    model = MaskablePPO.load(init, device=cfg.device)
    if cfg.arch is not None:
        new_body(model, cfg.arch.model_dump(), cfg.obs_layout, cfg.seed)
    return model, init


def new_body(model, arch: dict, obs_layout: str | None, seed: int):
    """Give a loaded MaskablePPO model a new policy of `arch` (training.nets), initialized from
    `seed`, over `obs_layout` (None: the model's own observation); its action space kept."""
    import torch

    from .nets import policy_kwargs

    torch.manual_seed(seed)
    kw = policy_kwargs(arch)
    model.policy_kwargs = kw
    if obs_layout is not None:
        from v1919_env.envs.pettingzoo_env import observation_space

        model.observation_space = observation_space(obs_mode="vector", obs_layout=obs_layout)
    model.policy = model.policy_class(model.observation_space, model.action_space, model.lr_schedule,
                                      **kw).to(model.device)
    return model


def outputs(policy, obs):
    """(masked-free logits, values) of an SB3 actor-critic policy; values [B], or [B, seats] for a
    value head per seat (training.policy.SeatValueHead)."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    head = policy.value_net
    values = head.seats(latent_vf) if hasattr(head, "seats") else head(latent_vf).reshape(-1)
    return policy.action_net(latent_pi), values


def _batch(policy, data, pi, vt, sl, n_obs, device):
    import torch

    obs = torch.from_numpy(data["obs"][sl, :n_obs].astype(np.float32)).to(device)
    logits, values = outputs(policy, obs)
    mask = torch.from_numpy(data["mask"][sl]).to(device)
    logp = torch.log_softmax(logits.masked_fill(~mask, ILLEGAL_LOGIT), dim=-1)
    t = torch.from_numpy(pi[sl]).to(device)
    ce = -(t * logp).sum(1)
    mse = (values - torch.from_numpy(vt[sl]).to(device)) ** 2
    if mse.dim() == 2:                   # a value per seat: the mean over the seats
        mse = mse.mean(1)
    return logp, values, ce, mse, t


def figures(policy, data, pi, vt, n_obs, device="cpu", batch=4096) -> dict:
    """Mean KL(target || policy), cross-entropy, top-1 agreement with the target's argmax, value MSE."""
    import torch

    tot = np.zeros(4)
    n = len(pi)
    with torch.no_grad():
        for k in range(0, n, batch):
            sl = np.arange(k, min(n, k + batch))
            logp, values, ce, mse, t = _batch(policy, data, pi, vt, sl, n_obs, device)
            ent = -(t * torch.log(t.clamp_min(1e-12))).sum(1)
            top = (logp.argmax(1) == t.argmax(1)).float()
            tot += np.array([(ce - ent).sum().item(), ce.sum().item(), top.sum().item(), mse.sum().item()])
    kl, ce, top, mse = tot / max(1, n)
    return {"kl": float(kl), "cross_entropy": float(ce), "top1": float(top), "value_mse": float(mse)}


def values_of(policy, data: dict, n_obs: int, idx: np.ndarray, device="cpu", batch=4096) -> np.ndarray:
    """The value head's outputs on the records idx."""
    import torch

    out = np.empty(len(idx), np.float64)
    with torch.no_grad():
        for k in range(0, len(idx), batch):
            sl = idx[k:k + batch]
            obs = torch.from_numpy(data["obs"][sl, :n_obs].astype(np.float32)).to(device)
            v = outputs(policy, obs)[1]
            out[k:k + len(sl)] = (v[:, 0] if v.dim() == 2 else v).cpu().numpy()   # the decider's own value
    return out


def win_prediction(policy, train: dict, hold: dict, n_obs: int, device="cpu", bins: int = 10) -> dict:
    """The value head as a win prediction on the held-out records: sigmoid(a v + b), (a, b) fitted on
    the held-out games of the other parity (2-fold by game, so an overfitted value head does not
    calibrate itself); its Brier score against the win shares, the Brier score of a baseline that
    knows only the seat's nation (its win rate in the training records), and the reliability table
    (bins of the predicted probability: mean prediction, observed win share, records)."""
    v = values_of(policy, hold, n_obs, np.arange(len(hold["win"])), device)
    y = hold["win"].astype(np.float64)
    p = np.empty_like(v)
    fold = hold["game"] % 2
    coef = []
    for k in (0, 1):
        other = fold != k
        if not other.any():          # one held-out game parity only: calibrate on all
            other = np.ones_like(other)
        a, b = platt(v[other], y[other])
        p[fold == k] = 1.0 / (1.0 + np.exp(-(a * v[fold == k] + b)))
        coef.append([a, b])
    rate = {int(n): float(train["win"][train["nation"] == n].mean()) for n in np.unique(train["nation"])}
    base = np.array([rate.get(int(n), float(train["win"].mean())) for n in hold["nation"]])
    edges = np.linspace(0, 1, bins + 1)
    which = np.clip(np.digitize(p, edges) - 1, 0, bins - 1)
    table = [{"bin": [float(edges[k]), float(edges[k + 1])], "predicted": float(p[which == k].mean()),
              "observed": float(y[which == k].mean()), "records": int((which == k).sum())}
             for k in range(bins) if (which == k).any()]
    return {"brier": float(np.mean((p - y) ** 2)), "brier_nation_baseline": float(np.mean((base - y) ** 2)),
            "records": int(len(y)), "platt": coef, "reliability": table}


def data_players(data: list[str]) -> int:
    """The player count of the self-play data directories (ConfigError: none, or of different counts)."""
    metas = [shards.read_meta(d) for d in data]
    if not metas:
        raise ConfigError("data: at least one self-play data directory")
    num_players = metas[0]["config"]["num_players"]
    if any(m["config"]["num_players"] != num_players for m in metas):
        raise ConfigError("data: directories of different player counts")
    return num_players


def fit(cfg: FitConfig, out: str | Path, progress: bool = True) -> dict:
    """Fit the network (`init`, or a new `arch`) to the teacher games of `cfg.data`; write
    `checkpoints/net.zip`, `config.yaml` and `fit.json` under `out` and return the figures: the
    held-out KL, cross-entropy, top-1 agreement and value MSE before and after every epoch, and the
    value head's win prediction (Brier score, nations-only baseline, reliability table)."""
    import torch
    from tqdm import tqdm

    torch.set_num_threads(1)
    out = Path(out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    data = [str(resolve_data(d)) for d in cfg.data]
    num_players = data_players(data)
    t0 = time.perf_counter()
    model, init = make_model(cfg, num_players)
    if cfg.seat_values and not hasattr(model.policy.value_net, "seats"):
        from .policy import with_seat_values

        with_seat_values(model)
    policy, dev = model.policy, model.device
    n_obs = int(model.observation_space.shape[0])
    compact = n_obs == COMPACT_SIZE             # a compact network: its rows observed again from the positions
    keys = fit_keys(cfg.target, cfg.seat_values)
    layout = "compact" if compact else None
    train = load_data(data, "train", cfg.max_records, keys, obs_layout=layout)
    hold = load_data(data, "holdout", keys=keys, obs_layout=layout)
    load_s = time.perf_counter() - t0
    vt_tr, vt_ho = (shards.value_targets(d, cfg.gamma, seats=cfg.seat_values) for d in (train, hold))
    if cfg.target == "improved" and cfg.improved_prior == "network" and cfg.arch is not None:
        raise ConfigError("improved_prior: network needs the starting network's policy; a new arch has none "
                          "(give improved_prior: recorded)")
    fns = ((policy_prior_fn(policy, train, n_obs, dev), policy_prior_fn(policy, hold, n_obs, dev))
           if cfg.target == "improved" and cfg.improved_prior == "network" else (None, None))
    pi_tr = targets(train, cfg.target, cfg.improved_scale, fns[0])
    pi_ho = targets(hold, cfg.target, cfg.improved_scale, fns[1])
    from agents.guided import checkpoint_facts

    facts = checkpoint_facts(init)
    reward = facts.get("reward", "win_loss")
    res = {"config": cfg.model_dump(), "init": init, "records": {"train": len(pi_tr), "holdout": len(pi_ho)},
           "train_games": int(len(np.unique(train["game"]))), "holdout_games": int(len(np.unique(hold["game"]))),
           "load_seconds": load_s, "epochs": []}
    res["before"] = figures(policy, hold, pi_ho, vt_ho, n_obs, dev)
    res["win_prediction_before"] = win_prediction(policy, train, hold, n_obs, dev)
    logger.info(f"{len(pi_tr):,} train records ({res['train_games']} games), {len(pi_ho):,} held out "
                f"({res['holdout_games']} games); held out before: {res['before']}")
    rng = np.random.default_rng(cfg.seed)
    params = (list(policy.mlp_extractor.value_net.parameters()) + list(policy.value_net.parameters())
              if cfg.train == "value" else list(policy.parameters()))
    opt = torch.optim.AdamW(params, lr=cfg.learning_rate, weight_decay=cfg.weight_decay)
    bs = cfg.batch_size
    per_epoch = max(1, len(pi_tr) // bs)
    steps = cfg.epochs * per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: max(0.0, 1.0 - k / steps))
    t0 = time.perf_counter()
    bar = tqdm(total=steps, unit="batch", desc=f"fit {cfg.name}", disable=not progress, mininterval=10)
    for ep in range(cfg.epochs):
        policy.set_training_mode(True)
        order = rng.permutation(len(pi_tr))
        for k in range(per_epoch):
            sl = np.sort(order[k * bs:(k + 1) * bs])
            _, _, ce, mse, _ = _batch(policy, train, pi_tr, vt_tr, sl, n_obs, dev)
            loss = cfg.value_coef * mse.mean() + (ce.mean() if cfg.train == "all" else 0.0)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            bar.update(1)
        policy.set_training_mode(False)
        f = figures(policy, hold, pi_ho, vt_ho, n_obs, dev)
        res["epochs"].append({"epoch": ep + 1, "seconds": time.perf_counter() - t0, **f})
        logger.info(f"epoch {ep + 1}: held out {f}")
    bar.close()
    res["after"] = res["epochs"][-1]
    res["win_prediction"] = win_prediction(policy, train, hold, n_obs, dev)
    logger.info(f"value head as a win prediction on held-out records: Brier {res['win_prediction']['brier']:.4f} "
                f"(nations only: {res['win_prediction']['brier_nation_baseline']:.4f})")
    res["fit_seconds"] = time.perf_counter() - t0
    ck = out / "checkpoints" / "net.zip"
    model.save(str(ck))
    (out / "config.yaml").write_text(yaml.safe_dump({"num_players": num_players, "reward": reward,
                                                     "fit": cfg.model_dump()}, sort_keys=False))
    res["checkpoint"] = str(ck)
    (out / "fit.json").write_text(json.dumps(res, indent=2))
    return res


def evaluate(path: str, games: int, num_players: int = 4, opponent: str = "rulebot", seed: int = EVAL_SEED,
             progress: bool = True) -> dict:
    """The network alone (`learned:path=...`) in one seat against `opponent` in the others, deals
    rotated through every seat; win share with its Wilson 95% interval (training.head_to_head)."""
    return head_to_head.measure(f"learned:path={path}", opponent, games, num_players, seed, progress)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.fit", description=__doc__.split("\n\n")[0])
    ap.add_argument("config")
    ap.add_argument("--data", nargs="+", default=None, help="self-play data directories (override the config's)")
    ap.add_argument("--out", default=None, help="run directory (default $V1919_RUNS/fit/<name>, training.runs)")
    ap.add_argument("--evaluate", type=int, default=0, metavar="GAMES",
                    help="then play the network alone against three rule bots, GAMES games, seats rotated")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        cfg = load_config(args.config, data=args.data)
        if args.evaluate < 0:
            raise ConfigError(f"--evaluate: games >= 0, got {args.evaluate}")
        if args.evaluate:
            n = data_players([str(resolve_data(d)) for d in cfg.data])
            if args.evaluate % n:
                raise ConfigError(f"--evaluate: a multiple of the player count {n} (whole deals), got {args.evaluate}")
        out = out_dir(args.out, "fit", cfg.name)
        res = fit(cfg, out)
    except (ConfigError, ValueError) as e:
        raise SystemExit(f"error: {e}")
    summary = {"checkpoint": res["checkpoint"], "before": res["before"], "after": res["after"],
               "brier": {k: {x: res[k][x] for x in ("brier", "brier_nation_baseline")}
                         for k in ("win_prediction_before", "win_prediction")}}
    if args.evaluate:
        n = yaml.safe_load((out / "config.yaml").read_text())["num_players"]
        ev = evaluate(res["checkpoint"], args.evaluate, n)
        res["evaluation"] = ev
        summary["evaluation"] = ev
        (out / "fit.json").write_text(json.dumps(res, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
