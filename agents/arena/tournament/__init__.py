"""Tournaments: agents by name play many seeded games in worker processes; every table, rating and
plot is computed from the per-game records (games.jsonl).

    cfg = load_config("configs/tournament/quick.yaml")
    play_games(cfg, "runs/tournaments/quick")       # resumable
    play_games(cfg, "runs/tournaments/quick", ray="local")      # on Ray: "local", "auto" or HOST:PORT
    rows = report(cfg, "runs/tournaments/quick")    # results.md, results.csv, ratings.png

Stages, one module each: config (YAML validation), schedule (seating), worker (one game),
pool (where games are played: this process, worker processes) and ray_pool (one worker process per
CPU of a Ray cluster), runner (resume, the executor), stats (wins, scores, ranks, OpenSkill), report
(files), errors. May import the agents (base, play) and `v1919_env` (the game, its records); never
`training` or the CLI; Ray only inside ray_pool's functions.
"""
from .config import ConfigError, TournamentConfig, config_from_dict, load_config
from .runner import GAMES_FILE, TournamentError, TournamentInterrupted, finished_games, play_games, report
from .schedule import schedule_period, seating

__all__ = ["ConfigError", "GAMES_FILE", "TournamentConfig", "TournamentError", "TournamentInterrupted",
           "config_from_dict", "finished_games", "load_config", "play_games", "report", "schedule_period", "seating"]
