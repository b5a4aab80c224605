"""The imitation warm start (config section `pretrain`): fit the policy to a teacher's decisions
(cross-entropy on the masked logits) and the value head to the teacher seats' discounted final
rewards (mean squared error), before PPO starts. Without the value fit PPO's first updates would
follow the advantages of an untrained critic and undo the imitation.

    pretrain: {teacher: rulebot, decisions: 600000, epochs: 3, batch_size: 512, learning_rate: 1.0e-3,
               value_coef: 0.5, holdout: 0.02}

Its time counts as training time (inside `budget.minutes`; state.json keeps it as pretrain_seconds).
"""
from __future__ import annotations

import logging
import time

import numpy as np
import torch
import torch.nn.functional as F

ILLEGAL_LOGIT = -1.0e9
logger = logging.getLogger(__name__)


def policy_outputs(policy, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(action logits, values) of an SB3 actor-critic policy for a batch of observations."""
    features = policy.extract_features(obs, policy.pi_features_extractor)
    latent_pi, latent_vf = policy.mlp_extractor(features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


def _batch(data, idx):
    obs = torch.from_numpy(data.obs[idx].astype(np.float32))
    mask = torch.from_numpy(data.masks[idx])
    return obs, mask, torch.from_numpy(data.actions[idx]), torch.from_numpy(data.returns[idx])


def _losses(policy, data, idx):
    obs, mask, act, ret = _batch(data, idx)
    logits, values = policy_outputs(policy, obs)
    logits = logits.masked_fill(~mask, ILLEGAL_LOGIT)
    ce = F.cross_entropy(logits, act)
    mse = F.mse_loss(values, ret)
    acc = (logits.argmax(1) == act).float().mean()
    return ce, mse, acc


def evaluate_fit(policy, data, idx: np.ndarray, batch_size: int = 4096) -> dict:
    """Mean cross-entropy, value MSE and top-1 accuracy (the policy's most probable legal action is
    the teacher's) over the decisions idx."""
    tot = np.zeros(3)
    with torch.no_grad():
        for k in range(0, len(idx), batch_size):
            sl = idx[k:k + batch_size]
            tot += len(sl) * np.array([x.item() for x in _losses(policy, data, sl)])
    ce, mse, acc = tot / max(1, len(idx))
    return {"cross_entropy": float(ce), "value_mse": float(mse), "accuracy": float(acc)}


def fit(policy, data, epochs: int, batch_size: int, learning_rate: float, value_coef: float, holdout: float,
        seed: int, progress: bool = False) -> dict:
    """Fit `policy` (in place) to the teacher data; returns the held-out figures before and after and
    the seconds it took. Logs the held-out figures (logger `training.pretrain`, INFO)."""
    from tqdm import tqdm

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data))
    n_hold = max(1, int(round(holdout * len(data))))
    hold, train = np.sort(order[:n_hold]), order[n_hold:]
    before = evaluate_fit(policy, data, hold)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    steps = epochs * (len(train) // batch_size)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 1.0 - k / max(1, steps))    # linear decay to 0
    policy.set_training_mode(True)
    bar = tqdm(total=steps, unit="batch", disable=not progress, desc="imitation")
    for _ in range(epochs):
        rng.shuffle(train)
        for k in range(0, len(train) - batch_size + 1, batch_size):
            ce, mse, acc = _losses(policy, data, np.sort(train[k:k + batch_size]))
            loss = ce + value_coef * mse
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            bar.update(1)
            if bar.n % 50 == 0:
                bar.set_postfix_str(f"ce {ce.item():.3f} acc {acc.item():.3f} v {mse.item():.3f}", refresh=False)
    bar.close()
    policy.set_training_mode(False)
    after = evaluate_fit(policy, data, hold)
    out = {"decisions": len(data), "games": data.games, "holdout": n_hold, "before": before, "after": after,
           "fit_seconds": time.perf_counter() - t0}
    logger.info(f"imitation: held-out accuracy {after['accuracy']:.3f} (cross-entropy {after['cross_entropy']:.3f}, "
        f"value MSE {after['value_mse']:.3f}) after {epochs} epochs over {len(train):,} decisions")
    return out
