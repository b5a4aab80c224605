"""The Ray RLlib backend of `v1919 train-rllib` (needs the `rllib` extra): `config` (the YAML
config, validated with the SB3 pipeline's checks), `env` (the compiled vector env each env runner
steps, its opponent roles), `runner` (the env runner: many games per compiled call, RLlib episodes
built in bulk), `learner` (RLlib's PPO learner), `backend` (the PPO run: checkpoints, snapshots,
resume, evaluation), `bench` (throughput) and `cli` (`v1919 train-rllib`, `python -m training
rllib`). May import `training`'s shared stages (config, evaluate, plots), `agents` (the masked
RLModule, agents/rllib_module.py) and `v1919_env`; `runner` and `learner` import Ray at module level
and are imported only inside functions elsewhere.
"""
