"""v1919_env: Versailles 1919 as a fast, exact reinforcement-learning environment.

    from v1919_env import Game, env, gym_env

Layers, each importing only those before it: `core/` (the compiled rules), `cards/` (card data),
the facade (`actions`, `rewards`, `seating`, `variants`, `positions/`, `game`, `records`),
`view/` (pictures), `envs/` (PettingZoo, Gymnasium, vector, OpenSpiel, compat adapters), then this
package's public names (loaded lazily), and on top the commands (`cli`, `bench`, `docs`), which may
also import `agents` and `training`. tests/test_layout.py checks the order.
"""
from importlib import metadata as _metadata

from .cards import CardDataError, CardSet, load_card_set
from .envs.versions import GYM_ID, SELFPLAY_GYM_ID, SOLITAIRE_GYM_ID

try:
    __version__ = _metadata.version("v1919-env")
except _metadata.PackageNotFoundError:      # a source tree that was never installed
    __version__ = "0+unknown"
__all__ = ["CardDataError", "CardSet", "load_card_set", "Game", "env", "raw_env", "gym_env", "solitaire_env",
           "__version__"]


def __getattr__(name):
    # lazy: the envs import gymnasium / pettingzoo, the core imports numba
    if name == "Game":
        from .game import Game
        return Game
    if name in ("env", "raw_env"):
        from v1919_env.envs import pettingzoo_env
        return getattr(pettingzoo_env, name)
    if name == "gym_env":
        from v1919_env.envs.gymnasium_env import gym_env
        return gym_env
    if name == "solitaire_env":
        from v1919_env.envs.solitaire_gym import solitaire_env
        return solitaire_env
    raise AttributeError(name)


def _register() -> None:
    try:
        import gymnasium
    except ImportError:      # pragma: no cover
        return
    if GYM_ID not in gymnasium.registry:
        # gymnasium.make_vec(GYM_ID, num_envs=N, ...) gives the compiled vector env (N games per call)
        gymnasium.register(id=GYM_ID, entry_point="v1919_env.envs.gymnasium_env:Versailles1919Env",
                           vector_entry_point="v1919_env.envs.vector_env:GymVectorEnv")
    if SOLITAIRE_GYM_ID not in gymnasium.registry:
        gymnasium.register(id=SOLITAIRE_GYM_ID, entry_point="v1919_env.envs.solitaire_gym:SolitaireEnv",
                           vector_entry_point="v1919_env.envs.vector_env:solitaire_vector_env")
    if SELFPLAY_GYM_ID not in gymnasium.registry:
        # one learner plays every seat of one game (v1919_env.compat.SelfPlayEnv); kwargs are its options
        gymnasium.register(id=SELFPLAY_GYM_ID, entry_point="v1919_env.envs.compat:SelfPlayEnv")


_register()
