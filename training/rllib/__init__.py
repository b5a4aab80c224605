"""The Ray RLlib backend of `v1919 train-rllib` (needs the `rllib` extra): `config` (the YAML
config, validated with the SB3 pipeline's checks), `env` (the multi-agent env RLlib samples, with
the opponents inside), `backend` (the PPO run: RLModule spec, checkpoints, resume, evaluation) and
`cli` (`v1919 train-rllib`, `python -m training rllib`). May import `training`'s shared stages
(config, evaluate, plots), `agents` and `v1919_env`; Ray is imported only inside functions.
"""
