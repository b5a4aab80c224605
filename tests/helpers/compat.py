"""Shared by the compat tests: random masked play of an AEC env."""
import numpy as np


def masked_aec_moves(env, seed, mask_of):
    """Play one AEC game with random legal actions (mask_of(obs, info) gives the mask); yields
    (agent, obs, info) before each live move."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield agent, obs, info
        env.step(int(rng.choice(np.flatnonzero(mask_of(obs, info)))))
