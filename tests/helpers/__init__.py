"""Shared test helpers: hand-built positions (scenario, events, solitaire), golden playthroughs,
board-picture checks, vector-env replays, registered test agents and subprocess workers."""
