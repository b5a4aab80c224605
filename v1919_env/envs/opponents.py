"""Opponent pools of the environments (the Gymnasium env and the vector envs): a compiled agent's
name as its policy code, and a pool's draw weights as cumulative probabilities."""
from __future__ import annotations

import numpy as np

from v1919_env.envs.vector_kernels import COMPILED_POLICIES


def compiled_code(name: str, where: str, other: str) -> int:
    """The policy code of the compiled agent `name`; ValueError at `where` otherwise (`other`: what
    to pass for an agent that is not compiled)."""
    if name not in COMPILED_POLICIES:
        raise ValueError(f"{where}: {name!r} is not a compiled agent; compiled agents: "
                         f"{', '.join(COMPILED_POLICIES)} (other agents: {other})")
    return COMPILED_POLICIES[name]


def pool_cumulative(weights, n: int) -> np.ndarray:
    """Cumulative draw probabilities of a pool of n opponents (`weights`: None for uniform, else n
    non-negative numbers with a positive sum; ValueError names opponent_weights); the last is 1."""
    if weights is None:
        w = np.full(n, 1.0)
    else:
        w = np.asarray(list(weights), np.float64)
        if w.shape != (n,) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
            raise ValueError(f"opponent_weights: {n} non-negative numbers with a positive sum, got {list(weights)!r}")
    cum = np.cumsum(w / w.sum())
    cum[-1] = 1.0
    return cum
