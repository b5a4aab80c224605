"""Agents for Versailles 1919: built by name (`make_agent("random", seed=0)`), one module each
(base.py has the interface and the registry), the games they play (`play`), the `v1919 play`,
`tournament` and `replay` commands (`commands`) and tournaments (`tournament/`). May import all of
`v1919_env` except its commands (cli, bench, docs); never `training`.
"""
from .base import (Agent, AgentError, agent_names, agent_options, make_agent, parse_agent_spec, register,
                   require_game)
from . import greedy, ismcts, random_agent, rulebot  # noqa: F401  (register "greedy", "ismcts", "random", "rulebot")
from . import human, learned  # noqa: F401  (register "human" and "learned"; learned imports torch only when built)
from . import guided  # noqa: F401  (register "guided": network-guided search, torch only when built)
from . import process  # noqa: F401  (register "process": a bot command run as a process, docs/protocol.md)

__all__ = ["Agent", "AgentError", "agent_names", "agent_options", "make_agent", "parse_agent_spec", "register",
           "require_game"]
