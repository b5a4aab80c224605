"""Search many games at once with the guided search and your own network: `search(games, network, ...)`.

As mctx users search a batch of positions with their own model, `search` takes a list of games (any
positions: `Game` objects, `Game.from_dict` for a position of your own), a network as a plain
callable from observations and masks to logits and a value per seat, and the `guided` agent's
options; every game is searched in the same steps of the lockstep engine (agents/lockstep.py), one
call of your network a step for the leaves of all of them. docs/search.md has an example that
trains a small AlphaZero-style network with it.
"""
from __future__ import annotations

from v1919_env.core.bots import seed_policy_rng

from .guided import GuidedAgent
from .lockstep import CallableNetwork, Lockstep, SearchResult

__all__ = ["CallableNetwork", "SearchResult", "search"]


class _Layout:
    """A callable network that observes in another layout (its `obs_layout`)."""

    def __init__(self, fn, obs_layout: str):
        self.fn, self.obs_layout = fn, obs_layout
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    def __call__(self, observations, masks):
        return self.fn(observations, masks)


def search(games, network=None, seeds=None, obs_layout: str | None = None, **options) -> list[SearchResult]:
    """Search every game of `games` at once (Game objects of one player count, not over; never
    modified) and return each one's SearchResult: the root's visits, priors and mean values, the move,
    the Gumbel root's considered actions and the root value.

    `network`: a callable `(observations, masks) -> (logits, values)` (`CallableNetwork`: one row a
    leaf, the decider's observation; a value for every seat, the decider first) evaluated once a step
    for the leaves of every game, or None for a checkpoint (`path=...`, default the shipped weights).
    `options` are the `guided` agent's (iterations, batch_size, root, c_puct, rollout_mix, bot_prior,
    ...; a simulation budget, not time_ms). `seeds`: each game's search generator (default the `seed`
    option, or 0, plus the game's index): a game's result depends on its seed, not on the games beside
    it (exactly so with the compiled network; a callable must itself give a row the same output in any
    batch for that). `obs_layout`: the layout a callable network observes ('full', the default, or
    'compact': docs/observation.md)."""
    games = list(games)
    if not games:
        return []
    if options.get("time_ms") is not None:
        raise ValueError("search: give a simulation budget (iterations), not time_ms")
    kind = {(g.solitaire, g.num_players) for g in games}
    if len(kind) > 1:
        raise ValueError(f"search: the games must all have the same player count, got {sorted(kind)}")
    if any(g.is_over for g in games):
        raise ValueError("search: a game is over (no decision to search)")
    if obs_layout is not None:
        if network is None:
            raise ValueError("search: obs_layout is for a callable network (a checkpoint knows its own layout)")
        network = _Layout(network, obs_layout)
    agent = GuidedAgent(network=network, **options)
    players = agent._check_game(games[0])
    if seeds is None:
        base = 0 if agent.seed is None else agent.seed
        seeds = [base + i for i in range(len(games))]
    if len(seeds) != len(games):
        raise ValueError(f"search: {len(games)} games and {len(seeds)} seeds")
    eng = Lockstep(agent, len(games), 1 if games[0].solitaire else players)
    for i, (g, s) in enumerate(zip(games, seeds)):
        eng.rng[i] = seed_policy_rng(int(s) & 0x7FFFFFFFFFFFFFFF)
        eng.begin([i], g.state, g.T)
    eng.run()
    return [eng.result(i) for i in range(len(games))]
