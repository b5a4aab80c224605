"""Any agent of this package as an OpenSpiel bot (needs the `openspiel` extra).

    import pyspiel
    from agents.openspiel_bot import AgentBot          # registers the game too
    game = pyspiel.load_game("versailles1919", {"players": 4})
    bots = [AgentBot("guided:iterations=100", seed=0), AgentBot("ismcts", seed=1),
            AgentBot("rulebot"), AgentBot("learned")]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)

`step(state)` hands the agent the deciding seat's observation and mask (as the environments build
them) and, for agents that read the game, a clone of the state's `Game` (`engine_game`): an agent
that searches still reads hidden information only through determinized copies, exactly as in
`v1919 play`. `restart` / `restart_at` (both `evaluate_bots` call one of them) reset the agent with
the bot's seed, so a seeded bot plays the same every run. Works with `pyspiel.evaluate_bots` and
`open_spiel.python.algorithms.evaluate_bots.evaluate_bots`.
"""
from __future__ import annotations

import pyspiel

import v1919_env.openspiel_game  # noqa: F401  (registers the game)

from .base import Agent, make_agent, parse_agent_spec
from .play import observe_seat


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

    def step(self, state) -> int:
        g = state.engine_game
        if g is None or g.is_over:
            raise pyspiel.SpielError("AgentBot.step: the state is a chance node or terminal")
        obs, mask = observe_seat(g, g.current_player)
        return int(self.agent.act(obs, mask, g.clone() if self.agent.needs_game else None))

    def restart(self) -> None:
        self.agent.reset(self.seed)

    def restart_at(self, state) -> None:
        self.agent.reset(self.seed)

    def inform_action(self, state, player_id, action) -> None:
        pass

    def provides_policy(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False
