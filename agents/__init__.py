"""Agents for Versailles 1919: built by name (`make_agent("random", seed=0)`), one module each
(base.py has the interface and the registry, seat.py what an agent is given at a decision). What runs
games between agents (play, clocks, tournaments, the ladder, the benchmark, process bots and their
sandbox, the commands, the web app) is the arena, `agents.arena`, a layer above. May import all of
`v1919_env` except its commands (cli, bench, docs); never `agents.arena` or `training`.

The arena's modules lived at `agents.<name>` before 0.2.0; those paths (`agents.play`, `agents.tournament`,
`python -m agents.process.client`, ...) still import, with a DeprecationWarning, through 0.2.x (docs/versioning.md).
"""
from ._moved import install as _install_moved
from .base import (Agent, AgentError, agent_names, agent_options, make_agent, parse_agent_spec, register,
                   require_game)
from . import greedy, ismcts, random_agent, rulebot  # noqa: F401  (register "greedy", "ismcts", "random", "rulebot")
from . import human, learned  # noqa: F401  (register "human" and "learned"; learned imports torch only when built)
from . import guided  # noqa: F401  (register "guided": network-guided search, torch only when built)

_install_moved()

__all__ = ["Agent", "AgentError", "agent_names", "agent_options", "make_agent", "parse_agent_spec", "register",
           "require_game"]
