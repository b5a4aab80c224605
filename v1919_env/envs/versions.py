"""The versions users pin: the environments' version (in every env id) and the observation's.

The rule (docs/versioning.md): ENV_VERSION goes up when the same seed and the same actions can give
a different episode through an environment: a rules fix that changes a transition, a changed
action space, reward, termination or default option, or a new OBSERVATION_VERSION. Then every id
changes with it (`Versailles1919-v4`, `versailles1919_v4`), and the old ids are no longer
registered. OBSERVATION_VERSION goes up when the observation's layout or encoding changes (a slice
added, moved, resized or scaled differently). Neither changes for speed-ups (the fingerprint tools
print the same digests), new info keys, new options whose default keeps the old behaviour, or docs.
"""
from __future__ import annotations

ENV_VERSION = 4
OBSERVATION_VERSION = 2
COMPACT_OBSERVATION_VERSION = 2       # obs_layout='compact' (core/observe_compact.py); the same rule

AEC_NAME = f"versailles1919_v{ENV_VERSION}"            # PettingZoo metadata name, the versioned module
PARALLEL_NAME = f"versailles1919_parallel_v{ENV_VERSION}"
GYM_ID = f"Versailles1919-v{ENV_VERSION}"
SOLITAIRE_GYM_ID = f"Versailles1919Solitaire-v{ENV_VERSION}"
SELFPLAY_GYM_ID = f"Versailles1919SelfPlay-v{ENV_VERSION}"   # compat.SelfPlayEnv: every seat learns
