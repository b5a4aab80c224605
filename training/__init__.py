"""Self-play training, evaluation and tournaments (needs the `train` extra: torch, sb3)."""
