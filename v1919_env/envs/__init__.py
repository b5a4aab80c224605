"""The environments: the rules as the RL libraries expect them.

PettingZoo AEC (`pettingzoo_env`), Gymnasium single-agent (`gymnasium_env`) and solitaire
(`solitaire_gym`, `solitaire_features`), the compiled vector env (`vector_env` over the batch
kernels of `vector_kernels`), OpenSpiel (`openspiel_game`), the adapters for other libraries
(`compat`) and the random-play conformance check every env is tested with (`conformance`).
May import the facade (`v1919_env.game`, `actions`, `rewards`, `seating`, `variants`), `cards`,
`view` and `core`; never the agents, training or the CLI. Public entry points stay where users
import them: `v1919_env.env`, `v1919_env.gym_env`, `v1919_env.compat`, `v1919_env.openspiel_game`.
"""
