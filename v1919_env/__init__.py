"""v1919_env: Versailles 1919 as a fast, exact reinforcement-learning environment.

    from v1919_env import Game, env, gym_env
"""
from .cards import CardDataError, CardSet, load_card_set

__version__ = "0.1.0"
__all__ = ["CardDataError", "CardSet", "load_card_set", "Game", "env", "raw_env", "gym_env", "solitaire_env",
           "__version__"]


def __getattr__(name):
    # lazy: the envs import gymnasium / pettingzoo, the core imports numba
    if name == "Game":
        from .game import Game
        return Game
    if name in ("env", "raw_env"):
        from . import pettingzoo_env
        return getattr(pettingzoo_env, name)
    if name == "gym_env":
        from .gymnasium_env import gym_env
        return gym_env
    if name == "solitaire_env":
        from .solitaire_gym import solitaire_env
        return solitaire_env
    raise AttributeError(name)


def _register() -> None:
    try:
        import gymnasium
    except ImportError:      # pragma: no cover
        return
    if "Versailles1919-v0" not in gymnasium.registry:
        gymnasium.register(id="Versailles1919-v0", entry_point="v1919_env.gymnasium_env:Versailles1919Env")
    if "Versailles1919Solitaire-v0" not in gymnasium.registry:
        gymnasium.register(id="Versailles1919Solitaire-v0", entry_point="v1919_env.solitaire_gym:SolitaireEnv")


_register()
