"""Terminal rewards from the final scoring, shared by the PettingZoo and Gymnasium environments.

- `win_loss` (default): zero-sum; the winners split +1, the others split -1 (a shared victory
  splits the +1; with everyone tied all get 0).
- `rank`: +1 for first place down to -1 for last, linear in rank, places ranked as the rules rank
  the winner (total, then happiness, then issues controlled); tied places share the average.
- `score_margin`: (own total - mean of the other totals) / 50, clipped to [-1, 1].
"""
from __future__ import annotations

import math
from collections.abc import Mapping

REWARD_KINDS = ("win_loss", "rank", "score_margin")


RANKING_CRITERIA = ("total", "happiness_level", "issues_controlled")
"""The rules' ranking: most points, then the higher happiness, then more issues controlled; a tie
on all three is shared (EN:765-769)."""


def ranking_key(score: dict) -> tuple[int, int, int]:
    """A seat's place in the rules' ranking (RANKING_CRITERIA); higher is better, equal keys share the place."""
    return score["total"], score.get("happiness_level", 0), score.get("issues_controlled", 0)


def ranks(scores: list[dict]) -> list[int]:
    """Rank per seat: 1 + the number of seats strictly ahead (tied seats share a rank)."""
    keys = [ranking_key(s) for s in scores]
    return [1 + sum(u > k for u in keys) for k in keys]


def tie_breaks(scores: list[dict]) -> list[str | None]:
    """Per seat: the criterion of RANKING_CRITERIA that puts it ahead of the seat ranked next below
    it ('shared' if it is tied with a seat on all three, None for the last place)."""
    keys = [ranking_key(s) for s in scores]
    out = []
    for k in keys:
        if keys.count(k) > 1:
            out.append("shared")
            continue
        below = [u for u in keys if u < k]
        if not below:
            out.append(None)
            continue
        nxt = max(below)
        out.append(RANKING_CRITERIA[0] if k[0] != nxt[0] else RANKING_CRITERIA[1] if k[1] != nxt[1]
                   else RANKING_CRITERIA[2])
    return out


def terminal_rewards(scores: list[dict], kind: str = "win_loss") -> list[float]:
    """Rewards per seat from Game.scores() (winners already tie-broken by the rules)."""
    n = len(scores)
    if kind not in REWARD_KINDS:
        raise ValueError(f"reward must be one of {REWARD_KINDS}, got {kind!r}")
    if kind == "win_loss":
        w = [s["winner"] for s in scores]
        k = sum(w)
        if k == n:
            return [0.0] * n
        return [1.0 / k if x else -1.0 / (n - k) for x in w]
    if kind == "rank":
        totals = [ranking_key(s) for s in scores]
        out = []
        for t, rank in zip(totals, ranks(scores)):
            better = rank - 1
            same = sum(1 for u in totals if u == t)
            # average of the linear values of the places [better, better + same)
            vals = [1.0 - 2.0 * r / (n - 1) for r in range(better, better + same)]
            out.append(sum(vals) / len(vals))
        return out
    totals = [s["total"] for s in scores]
    out = []
    for p, t in enumerate(totals):
        others = [u for q, u in enumerate(totals) if q != p]
        out.append(max(-1.0, min(1.0, (t - sum(others) / len(others)) / 50.0)))
    return out


def reward_weights(reward, nonnegative: bool = False) -> dict[str, float]:
    """A reward spec (a kind name, or a mapping {kind: weight} for a weighted sum, e.g. win_loss plus
    a score-margin shaping term) as {kind: weight}; ValueError names what is wrong. Weights are finite
    numbers, not all zero; `nonnegative` (the training configs) refuses a negative one, which would
    train an agent to lose."""
    if isinstance(reward, str):
        reward = {reward: 1.0}
    if not isinstance(reward, Mapping) or not reward:
        raise ValueError(f"reward must be one of {REWARD_KINDS} or a mapping {{kind: weight}}, got {reward!r}")
    out = {}
    for k, w in reward.items():
        if k not in REWARD_KINDS:
            raise ValueError(f"reward kind {k!r} is unknown; kinds: {', '.join(REWARD_KINDS)}")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not math.isfinite(w):
            raise ValueError(f"reward weight of {k!r} must be a finite number, got {w!r}")
        if nonnegative and w < 0:
            raise ValueError(f"reward weight of {k!r} must be 0 or more (a negative weight trains to lose), got {w!r}")
        out[k] = float(w)
    if not any(out.values()):
        raise ValueError(f"reward: at least one weight must be nonzero, got {dict(reward)!r}")
    return out


def weighted_rewards(scores: list[dict], weights: Mapping[str, float]) -> list[float]:
    """Rewards per seat: the sum over kinds of weight x terminal_rewards(scores, kind)."""
    out = [0.0] * len(scores)
    for kind, w in weights.items():
        for k, r in enumerate(terminal_rewards(scores, kind)):
            out[k] += w * r
    return out
