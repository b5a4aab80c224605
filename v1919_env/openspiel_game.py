"""OpenSpiel registration, public name: `import pyspiel, v1919_env.openspiel_game` registers the game
"versailles1919" with pyspiel (docs/openspiel.md; needs the `openspiel` extra).

The code is in `v1919_env.envs.openspiel_game`; importing this module imports it, which registers the game.
"""
from v1919_env.envs.openspiel_game import (DEFAULT_PARAMS, GAME_TYPE, NUM_DEALS, SHORT_NAME, ISMCTSBot,
                                           VersaillesGame, VersaillesObserver, VersaillesState)

__all__ = ["DEFAULT_PARAMS", "GAME_TYPE", "NUM_DEALS", "SHORT_NAME", "ISMCTSBot", "VersaillesGame",
           "VersaillesObserver", "VersaillesState"]
