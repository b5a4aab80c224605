"""tests/ mirrors the packages (core, cards, positions, envs, view, agents, training) plus the rules'
worked examples (examples/); helpers/ is shared. pytest's default import mode puts this folder on
sys.path (for this conftest), so every test imports `helpers.<module>`."""
