"""The arena: what runs games between agents, and trusts none of them. `play` (one game: observations,
information sets, clocks, forfeits, the record), `clock` (time controls), `tournament/` (configs,
schedules, worker processes or Ray, records checked by replay, reports), `ladder` and `benchmark` (the
tables to cite), `nation_balance`, `solitaire_score`, `precompile` (the kernels a command needs),
`process/` (bots as processes: the protocol, the sandbox, the reference client), `web/` (`v1919 serve`),
`win_probability` (the web app's analysis), `commands` and `cli` (the `v1919` subcommands, found through
the `v1919.commands` entry point) and `bench` (the agents' lines of `v1919 bench`).

May import `v1919_env` (of its commands, `arguments` and `bench`, which its own commands extend; never
`cli`) and the agents below it (`agents.base`, `agents.seat`, the agents); never `training`. Nothing below
it imports it (`v1919` finds its commands through entry points, pyproject.toml).
"""
