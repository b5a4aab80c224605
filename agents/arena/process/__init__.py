"""Bots as processes (issue 33, docs/protocol.md): the line-based JSON protocol (`protocol`), the agent
that runs a bot command as a process per game and speaks it (`bot`, registered as "process"; a
tournament entry `{cmd: "..."}`), and the reference client that runs any agent of this package out of
process (`client`, `python -m agents.arena.process.client SPEC`). May import `v1919_env` (not its
commands) and the rest of `agents` below the commands; never `training`.
"""
from . import bot  # noqa: F401  (registers "process")
