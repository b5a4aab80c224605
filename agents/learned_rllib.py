"""The `learned` agent's reader of RLlib checkpoints (`v1919 train-rllib`, training/rllib/backend.py).

`learned:path=DIR` with DIR an RLlib algorithm checkpoint (`checkpoints/iter_<N>/`; its one module,
`default_policy`, is played) or an RLModule checkpoint directory. The module is the project's masked
actor-critic (agents/rllib_module.py), whose logits are already masked; the distribution is masked
again here, so an illegal id gets probability 0 whatever the module. Needs ray[rllib] and torch
(imported when the agent is built), one torch thread.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from v1919_env.actions import NUM_ACTIONS
from v1919_env.core.observe import OBS_SIZE

MODULE_ID = "default_policy"     # RLlib's DEFAULT_MODULE_ID: the module of a single-agent algorithm
MODULE_IN_ALGORITHM = Path("learner_group") / "learner" / "rl_module" / MODULE_ID
MODULE_FILE = "class_and_ctor_args.pkl"     # what every RLlib component checkpoint holds


def module_dir(path) -> Path:
    """The RLModule checkpoint inside `path` (an algorithm checkpoint or a module checkpoint)."""
    p = Path(path)
    for d in (p / MODULE_IN_ALGORITHM, p):
        if (d / MODULE_FILE).is_file() and any(d.glob("module_state*")):
            return d
    raise ValueError(f"{str(p)!r} is not an RLlib checkpoint: neither it nor {str(p / MODULE_IN_ALGORITHM)!r} "
                     f"holds an RLModule ({MODULE_FILE} and module_state)")


class RLlibPolicy:
    """An RLlib RLModule checkpoint as a masked action distribution."""

    def __init__(self, path):
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule

        from .rllib_module import MASK_KEY, OBS_KEY, MaskedPPOModule

        torch.set_num_threads(1)
        d = module_dir(path)
        try:
            module = RLModule.from_checkpoint(str(d.resolve()))      # pyarrow wants an absolute path
        except Exception as e:         # a damaged checkpoint, another library's files
            raise ValueError(f"cannot load {str(d)!r} as an RLlib RLModule: {type(e).__name__}: {e}") from e
        if not isinstance(module, MaskedPPOModule):
            raise ValueError(f"{d}: the module is a {type(module).__module__}.{type(module).__name__}, not the "
                             f"project's MaskedPPOModule (agents/rllib_module.py): a checkpoint of another "
                             f"program, or of `v1919 train-rllib` before it trained on the vector env")
        inner = module.observation_space.spaces[module.obs_key]
        if tuple(inner.shape) != (OBS_SIZE,):
            raise ValueError(f"{d}: the module observes {module.observation_space}, this environment a dict with "
                             f"{OBS_KEY!r} of shape {(OBS_SIZE,)}")
        if module.action_space.n != NUM_ACTIONS:
            raise ValueError(f"{d}: the module has {module.action_space.n} actions, this environment {NUM_ACTIONS}")
        module.eval()
        self.module = module
        self._keys = (module.obs_key, MASK_KEY)
        self._torch = torch

    def probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The module's masked action distribution (zero on every illegal id)."""
        torch = self._torch
        obs = {self._keys[0]: torch.as_tensor(np.asarray(observation, np.float32)[None]),
               self._keys[1]: torch.as_tensor(np.asarray(action_mask)[None])}
        with torch.no_grad():
            logits = self.module.logits(obs)[0].double().numpy()
        legal = action_mask != 0
        z = np.where(legal, logits, -np.inf)
        probs = np.exp(z - z[legal].max())
        return probs / probs.sum()
