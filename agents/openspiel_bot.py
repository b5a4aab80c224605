"""Any agent of this package as an OpenSpiel bot (needs the `openspiel` extra).

    import pyspiel
    from agents.openspiel_bot import AgentBot          # registers the game too
    game = pyspiel.load_game("versailles1919", {"players": 4})
    bots = [AgentBot("guided:iterations=100", seed=0), AgentBot("ismcts", seed=1),
            AgentBot("rulebot"), AgentBot("learned")]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)

`step(state)` hands the agent the deciding seat's observation and mask (as the environments build
them) and, for agents that read the game, the seat's information set: a copy of the state's `Game`
(`engine_game`) with the hidden deck orders and dice resampled (`Game.information_set`), exactly as
in `v1919 play`, with seeds drawn from the bot's seed by the bot wrapper, never the real game. (A
native OpenSpiel bot is handed the OpenSpiel state itself, as OpenSpiel does for every game.) `restart` / `restart_at` (both `evaluate_bots` call one of them) reset the agent with
the bot's seed, so a seeded bot plays the same every run. Works with `pyspiel.evaluate_bots` and
`open_spiel.python.algorithms.evaluate_bots.evaluate_bots`.
"""
from __future__ import annotations

import pyspiel

import v1919_env.openspiel_game  # noqa: F401  (registers the game)

from .base import Agent, make_agent, parse_agent_spec
from v1919_env.game import hand_off_rng

from .seat import hand_off, observe_seat


class AgentBot(pyspiel.Bot):
    """`agent`: an Agent, or a spec string (`"guided:iterations=100"`); `seed`: the agent's seed at
    every restart (None: the agent's own)."""

    def __init__(self, agent: Agent | str, seed: int | None = None):
        pyspiel.Bot.__init__(self)
        if isinstance(agent, str):
            name, opts = parse_agent_spec(agent)
            agent = make_agent(name, **opts)
        self.agent = agent
        self.seed = seed
        self.agent.reset(seed)
        self._hand = hand_off_rng(seed or 0)

    def step(self, state) -> int:
        g = state.engine_game
        if g is None or g.is_over:
            raise pyspiel.SpielError("AgentBot.step: the state is a chance node or terminal")
        obs, mask = observe_seat(g, g.current_player)
        return int(self.agent.act(obs, mask, hand_off(g, g.current_player, self._hand)
                                  if self.agent.needs_game else None))

    def restart(self) -> None:
        self.agent.reset(self.seed)
        self._hand = hand_off_rng(self.seed or 0)

    def restart_at(self, state) -> None:
        self.agent.reset(self.seed)
        self._hand = hand_off_rng(self.seed or 0)

    def inform_action(self, state, player_id, action) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False
