"""Self-play training (needs the `train` extra: torch, sb3-contrib): `v1919 train CONFIG.yaml`.

Stages, one module each: config (YAML validation and defaults), envs (the compiled vector env as an
SB3 VecEnv), opponents (frozen past policies, the opponent pool), policy (the network), learner
(MaskablePPO, run directory, checkpoints, schedule, budget, resume), evaluate (tournaments against
the baselines), plots (learning curve), cli; the Ray RLlib backend in `training/rllib/`;
`training/examples/` holds single-file scripts, not a package (`ppo_masked_vector.py`: CleanRL-style
masked PPO on `gymnasium.make_vec`). May import `agents` and `v1919_env` (except its commands);
torch and the RL libraries only here.
"""
