"""Export a checkpoint for shipping: the same MaskablePPO zip with the optimizer's running state
dropped (a fresh optimizer) and without the training-time state of the rollouts (the last
observations of every game of the vector env, 2 MB at 256 games; episode statistics); the policy is
unchanged."""
from __future__ import annotations

from pathlib import Path

ROLLOUT_STATE = ("_last_obs", "_last_episode_starts", "_last_original_obs", "ep_info_buffer", "ep_success_buffer")


def export_weights(src, dst) -> Path:
    """Write a copy of checkpoint `src` without the optimizer's state to `dst`; returns dst."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    model = MaskablePPO.load(str(src), device="cpu")
    opt = model.policy.optimizer
    model.policy.optimizer = type(opt)(model.policy.parameters(), **opt.defaults)
    out = Path(dst)
    out.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(out), exclude=list(ROLLOUT_STATE))
    return out
