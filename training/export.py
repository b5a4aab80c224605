"""Export a checkpoint for shipping: the same MaskablePPO zip with the optimizer's running state
dropped (a fresh optimizer), which cuts its size by about two thirds; the policy is unchanged."""
from __future__ import annotations

from pathlib import Path


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
    model.save(str(out))
    return out
