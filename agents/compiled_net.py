"""A MaskablePPO policy network evaluated by compiled kernels, row by row in a fixed order.

The search evaluates thousands of leaves a second, and a leaf's result must not depend on which other
leaves share its forward pass (a game's record depends on its seed and config only, never on the
games searched beside it). torch's matrix products are not batch-invariant (the same row gives
other low bits in a batch of 4 and one of 64), so the lockstep search evaluates plain MLP policies
here instead: each output is the bias plus the inputs' products added in input order, skipping zero
inputs (exact: the observation is mostly one-hot zeros, so the first layer costs its nonzeros, not
its 2,032 columns); only the value path runs for the seats that do not decide, and the policy head
only for the legal actions. Results are the same bits on every machine (no fused or reordered
arithmetic), and within float32 rounding of torch's.

`CompiledPolicy.from_policy(policy)` reads an SB3 ActorCriticPolicy whose features extractor is a
chain of Linear and ReLU/Tanh layers (`training.policy.TrunkExtractor`, `Flatten`) and whose
mlp_extractor nets are such chains (shared or separate extractors); anything else (a residual body,
layer norms, a dict observation) is `None`, and the search uses torch for it.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from v1919_env.core.layout import MAX_PLAYERS

ACT_NONE, ACT_RELU, ACT_TANH = 0, 1, 2
# layer table columns: weight offset, bias offset, inputs, outputs, activation
L_W, L_B, L_IN, L_OUT, L_ACT = 0, 1, 2, 3, 4
# program entries: layer ranges [start, end) of the shared trunk, the policy path and the value path,
# then the action layer and the value layer
P_TRUNK0, P_TRUNK1, P_PI0, P_PI1, P_VF0, P_VF1, P_ACTION, P_VALUE = range(8)
WIDEST = 4096       # the widest input or hidden layer the kernels' scratch holds


class CompiledPolicy:
    """The weights of an MLP policy as flat arrays for `policy_row` and `value_row`."""

    def __init__(self, weights: np.ndarray, layers: np.ndarray, program: np.ndarray, n_in: int):
        self.weights, self.layers, self.program, self.n_in = weights, layers, program, n_in

    @classmethod
    def from_policy(cls, policy) -> CompiledPolicy | None:
        """The compiled form of an SB3 policy, or None when it is not a plain MLP (see module docstring)."""
        from gymnasium import spaces

        if not isinstance(policy.observation_space, spaces.Box) or len(policy.observation_space.shape) != 1:
            return None
        if policy.share_features_extractor:
            trunk = _chain(policy.features_extractor)
            pi_ext, vf_ext = [], []
        else:
            trunk = []
            pi_ext, vf_ext = _chain(policy.pi_features_extractor), _chain(policy.vf_features_extractor)
        pi, vf = _chain(policy.mlp_extractor.policy_net), _chain(policy.mlp_extractor.value_net)
        if None in (trunk, pi_ext, vf_ext, pi, vf):
            return None
        chunks, table = [], []
        off = 0

        def add(lin, act, transpose=True):
            nonlocal off
            w = lin.weight.detach().cpu().numpy().astype(np.float32)
            w = np.ascontiguousarray(w.T if transpose else w).reshape(-1)
            b = (lin.bias.detach().cpu().numpy().astype(np.float32) if lin.bias is not None
                 else np.zeros(lin.out_features, np.float32))
            table.append((off, off + w.size, lin.in_features, lin.out_features, act))
            chunks.extend([w, b])
            off += w.size + b.size

        prog = []
        for part in (trunk, pi_ext + pi, vf_ext + vf):
            prog.append(len(table))
            for lin, act in part:
                add(lin, act)
            prog.append(len(table))
        prog.append(len(table))
        add(policy.action_net, ACT_NONE, transpose=False)     # rows per action: dot products for the legal ones
        prog.append(len(table))
        add(policy.value_net, ACT_NONE)
        layers = np.asarray(table, np.int64)
        n_in = int(policy.observation_space.shape[0])
        if max(layers[:, L_OUT].max(), n_in) > WIDEST or policy.value_net.out_features not in (1, MAX_PLAYERS):
            return None                  # (the kernels' scratch holds WIDEST values and nonzero inputs)
        return cls(np.concatenate(chunks), layers, np.asarray(prog, np.int64), n_in)

    @property
    def seat_values(self) -> bool:
        """True when the value head gives every relative seat's value (one row a leaf, the decider's)."""
        return int(self.layers[self.program[P_VALUE], L_OUT]) > 1


def _chain(module) -> list | None:
    """[(Linear, activation)] of a Sequential-like chain of Linear and ReLU/Tanh layers (a Flatten or
    an empty chain: []), or None for anything else."""
    from torch import nn

    children = list(module.children())
    if len(children) == 1 and isinstance(children[0], nn.Flatten) and not list(module.parameters()):
        return []                  # SB3's FlattenExtractor (a plain MlpPolicy's features)
    mods = list(module.net) if hasattr(module, "net") and isinstance(module.net, nn.Sequential) else \
        list(module) if isinstance(module, nn.Sequential) else [module]
    out = []
    for m in mods:
        if isinstance(m, nn.Flatten):
            continue
        if isinstance(m, nn.Linear):
            out.append([m, ACT_NONE])
        elif isinstance(m, (nn.ReLU, nn.Tanh)) and out and out[-1][1] == ACT_NONE:
            out[-1][1] = ACT_RELU if isinstance(m, nn.ReLU) else ACT_TANH
        else:
            return None
    return [tuple(x) for x in out]


@njit(cache=True, _nrt=False)
def dense(x, n_in, W, layer, out, nz):
    """out[:n_out] = activation(bias + the sum over inputs k, in order, of x[k] * W[k]) (zero inputs
    skipped); returns n_out. The nonzero inputs are listed first in nz (branch-free), and weight rows
    are slices so that the inner loop vectorizes (no index wraparound)."""
    w0, b0, n_out, act = layer[L_W], layer[L_B], layer[L_OUT], layer[L_ACT]
    y = out[:n_out]
    bias = W[b0:b0 + n_out]
    for j in range(n_out):
        y[j] = bias[j]
    m = 0
    for k in range(n_in):
        nz[m] = k
        m += x[k] != 0.0
    for i in range(m):
        k = nz[i]
        xk = x[k]
        row = W[w0 + k * n_out:w0 + (k + 1) * n_out]
        for j in range(n_out):
            y[j] += xk * row[j]
    if act == ACT_RELU:
        for j in range(n_out):
            if y[j] < 0.0:
                y[j] = 0.0
    elif act == ACT_TANH:
        for j in range(n_out):
            y[j] = np.tanh(y[j])
    return n_out


@njit(cache=True, _nrt=False)
def run_layers(x, n, W, layers, first, last, a, b, nz):
    """Apply layers [first, last) to x[:n], alternating between the buffers a and b; returns (which,
    width): the result is a[:width] (which 0), b[:width] (1), or x itself (-1: no layer)."""
    which = -1
    for i in range(first, last):
        if which == 0:
            n = dense(a, n, W, layers[i], b, nz)
            which = 1
        elif which == 1:
            n = dense(b, n, W, layers[i], a, nz)
            which = 0
        else:
            n = dense(x, n, W, layers[i], a, nz)
            which = 0
    return which, n


@njit(cache=True, _nrt=False)
def _pick(x, a, b, which):
    if which == 0:
        return a
    if which == 1:
        return b
    return x


@njit(cache=True, _nrt=False)
def _value_head(t, n, W, layers, program, a, b, nz, vout):
    """The value path from the trunk's output t[:n], through the buffers a and b (neither may be t):
    vout[:outputs] = the value layer's outputs (one, or one per relative seat)."""
    w, m = run_layers(t, n, W, layers, program[P_VF0], program[P_VF1], a, b, nz)
    h = _pick(t, a, b, w)
    out = b if w == 0 else a
    k = dense(h, m, W, layers[program[P_VALUE]], out, nz)
    for j in range(k):
        vout[j] = out[j]


@njit(cache=True, _nrt=False)
def logits(h, n2, W, act, legal, nlegal, z):
    """z[j] = the logit of action legal[j] from the policy path's output h[:n2] (act: the action
    layer): its bias plus h[k] * its weight k, added in order; four actions at a time, so that four
    chains of additions overlap (each action's sum is the one-at-a-time sum, bit for bit)."""
    w0, b0 = act[L_W], act[L_B]
    j = 0
    while j + 4 <= nlegal:
        a0, a1, a2, a3 = legal[j], legal[j + 1], legal[j + 2], legal[j + 3]
        c0, c1, c2, c3 = W[b0 + a0], W[b0 + a1], W[b0 + a2], W[b0 + a3]
        r0, r1 = W[w0 + a0 * n2:w0 + (a0 + 1) * n2], W[w0 + a1 * n2:w0 + (a1 + 1) * n2]
        r2, r3 = W[w0 + a2 * n2:w0 + (a2 + 1) * n2], W[w0 + a3 * n2:w0 + (a3 + 1) * n2]
        for k in range(n2):
            hk = h[k]
            c0 += hk * r0[k]
            c1 += hk * r1[k]
            c2 += hk * r2[k]
            c3 += hk * r3[k]
        z[j], z[j + 1], z[j + 2], z[j + 3] = c0, c1, c2, c3
        j += 4
    while j < nlegal:
        a = legal[j]
        acc = W[b0 + a]
        row = W[w0 + a * n2:w0 + (a + 1) * n2]
        for k in range(n2):
            acc += h[k] * row[k]
        z[j] = acc
        j += 1


@njit(cache=True, _nrt=False)
def heads(t0, n0, start, W, layers, program, want_policy, legal, nlegal, probs, z, s1, s2, s3, s4, nz, vout):
    """The rest of the network from t0[:n0], the output of the trunk's layers before `start`: the
    value head's outputs in vout, and with want_policy probs[legal[j]] = the softmax over the legal actions of
    their logits (z: float64 scratch of at least nlegal; other entries of probs untouched)."""
    w, n = run_layers(t0, n0, W, layers, start, program[P_TRUNK1], s1, s2, nz)
    t = _pick(t0, s1, s2, w)
    if want_policy:
        w2, n2 = run_layers(t, n, W, layers, program[P_PI0], program[P_PI1], s3, s4, nz)
        logits(_pick(t, s3, s4, w2), n2, W, layers[program[P_ACTION]], legal, nlegal, z)
        hi = -1e300
        for j in range(nlegal):
            if z[j] > hi:
                hi = z[j]
        tot = 0.0
        for j in range(nlegal):
            z[j] = np.exp(z[j] - hi)
            tot += z[j]
        for j in range(nlegal):
            probs[legal[j]] = z[j] / tot
    _value_head(t, n, W, layers, program, s3, s4, nz, vout)


def scratch() -> tuple[np.ndarray, ...]:
    """The four hidden-layer buffers and the list of nonzero inputs the row kernels take."""
    return tuple(np.zeros(WIDEST, np.float32) for _ in range(4)) + (np.zeros(WIDEST, np.int64),)
