"""Per-agent figures of a tournament, computed from its game records alone.

- wins: a game won alone counts 1; a win shared by k seats (a tie that the rules' tie-break does
  not settle, EN:765-769) counts 1/k to each, so the wins of a game always add up to 1 and n equal
  agents each win 1/n of their games. The 95% interval is Wilson's score interval on that rate.
- mean score and its breakdown (issues, flags, strategy, happiness): over the games that ended by
  the rules (a forfeited game stops early, so its scores are partial; it still counts as a game,
  a loss for the forfeiting seat, and in the mean rank).
- mean rank: 1 = first; tied seats share the better rank.
- ms per decision: the agent's time in act(), wall clock and CPU (this process's), which includes
  loading compiled code at a worker's first decisions.
- overruns: the agent's decisions that took longer than its clock allowed (agents/arena/clock.py): each
  one forfeited its game (overrun: forfeit) or was replaced by the fallback move (overrun:
  fallback), as timing.clock.overruns of the records say.
- OpenSkill ratings (Plackett-Luce, default mu 25, sigma 25/3): every game, in game-index order,
  updates the seated agents with their ranks; ordinal = mu - 3 sigma.
"""
from __future__ import annotations

import math

SCORE_PARTS = ("total", "issues", "flags", "strategy", "happiness")
Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (successes may be fractional); (0, 1) when n = 0."""
    if n <= 0:
        return 0.0, 1.0
    p = successes / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    den = 1 + z * z / n
    # the interval holds p; the clamps only undo rounding (0 wins of 6 gave a lower end of 3e-17)
    return max(0.0, min(p, (centre - half) / den)), min(1.0, max(p, (centre + half) / den))


def openskill_ratings(records: list[dict], labels: list[str]) -> dict[str, tuple[float, float, float]]:
    """label -> (mu, sigma, ordinal) after rating every game in game-index order (Plackett-Luce)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rating = {lab: model.rating(name=lab) for lab in labels}
    for rec in sorted(records, key=lambda r: r["game"]):
        seat_labels = [s["label"] for s in rec["seats"]]
        new = model.rate([[rating[lab]] for lab in seat_labels], ranks=list(rec["result"]["ranks"]))
        for lab, team in zip(seat_labels, new):
            rating[lab] = team[0]
    return {lab: (r.mu, r.sigma, r.ordinal()) for lab, r in rating.items()}


def agent_rows(records: list[dict], labels: list[str]) -> list[dict]:
    """One row of figures per agent (see the module docstring), best win rate first (then the better
    mean rank, then the config's order). Not by the OpenSkill ordinal: it rates the games in their
    index order and may order agents against their win rates (issue 21), so it is only shown."""
    rows = {lab: {"agent": lab, "games": 0, "wins": 0.0, "forfeits": 0, "completed": 0, "rank_sum": 0,
                  "decisions": 0, "seconds": 0.0, "cpu_seconds": 0.0, "overruns": 0,
                  **{f"sum_{k}": 0 for k in SCORE_PARTS}}
            for lab in labels}
    for rec in records:
        res = rec["result"]
        share = 1.0 / len(res["winners"]) if res["winners"] else 0.0
        timing = rec.get("timing") or {}
        for ev in (timing.get("clock") or {}).get("overruns", []):
            rows[rec["seats"][ev["seat"]]["label"]]["overruns"] += 1
        for p, seat in enumerate(rec["seats"]):
            r = rows[seat["label"]]
            r["games"] += 1
            r["wins"] += share if p in res["winners"] else 0.0
            r["rank_sum"] += res["ranks"][p]
            for k in ("decisions", "seconds", "cpu_seconds"):
                r[k] += timing.get(k, [0] * len(rec["seats"]))[p]
            if res["forfeit"] is not None:
                r["forfeits"] += res["forfeit"]["seat"] == p
                continue
            r["completed"] += 1
            for k in SCORE_PARTS:
                r[f"sum_{k}"] += res["scores"][p][k]
    ratings = openskill_ratings(records, labels)
    out = []
    for lab in labels:
        r = rows[lab]
        n, c = r["games"], r["completed"]
        lo, hi = wilson_interval(r["wins"], n)
        mu, sigma, ordinal = ratings[lab]
        row = {"agent": lab, "games": n, "wins": r["wins"], "win_rate": r["wins"] / n if n else float("nan"),
               "win_low": lo, "win_high": hi, "forfeits": r["forfeits"], "overruns": r["overruns"],
               **{f"mean_{k}": r[f"sum_{k}"] / c if c else float("nan") for k in SCORE_PARTS},
               "mean_rank": r["rank_sum"] / n if n else float("nan"), "mu": mu, "sigma": sigma, "ordinal": ordinal,
               **{f"{k}ms_per_decision": 1000 * r[f"{k}seconds"] / r["decisions"] if r["decisions"] else float("nan")
                  for k in ("", "cpu_")}}
        out.append(row)
    return sorted(out, key=lambda row: (-row["win_rate"], row["mean_rank"]))     # (a stable sort: then labels)


def seat_win_shares(records: list[dict]) -> list[float]:
    """Share of the wins (shared wins split) that went to each seat, whoever sat there."""
    n = max((len(r["seats"]) for r in records), default=0)
    wins = [0.0] * n
    for r in records:
        for p in r["result"]["winners"]:
            wins[p] += 1.0 / len(r["result"]["winners"])
    return [w / len(records) for w in wins] if records else wins


def game_counts(records: list[dict]) -> dict:
    """How many games, and how many of them were forfeited, truncated, or won jointly."""
    return {"games": len(records),
            "forfeited": sum(r["result"]["forfeit"] is not None for r in records),
            "truncated": sum(bool(r["result"]["truncated"]) for r in records),
            "shared_wins": sum(len(r["result"]["winners"]) > 1 for r in records)}


def chi2_sf_3(x: float) -> float:
    """P(X >= x) for a chi-square variable with 3 degrees of freedom (closed form)."""
    if x <= 0:
        return 1.0
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)


def equal_shares_test(records: list[dict], labels: list[str]) -> dict:
    """Do the agents `labels` (copies of one agent, or any agents that play the same number of
    games) win equal shares? Pearson's chi-square of their wins (shared wins split) against equal
    shares of the wins they took together; the p-value in closed form for 4 agents (3 degrees of
    freedom), else from scipy. Returns {"wins", "games", "shares", "chi2", "df", "p"}."""
    wins = {lab: 0.0 for lab in labels}
    games = {lab: 0 for lab in labels}
    for rec in records:
        res = rec["result"]
        for p, seat in enumerate(rec["seats"]):
            if seat["label"] in wins:
                games[seat["label"]] += 1
                if p in res["winners"]:
                    wins[seat["label"]] += 1.0 / len(res["winners"])
    total = sum(wins.values())
    expected = total / len(labels)
    chi2 = sum((w - expected) ** 2 / expected for w in wins.values()) if expected > 0 else 0.0
    df = len(labels) - 1
    if df == 3:
        p = chi2_sf_3(chi2)
    else:
        from scipy.stats import chi2 as chi2_dist

        p = float(chi2_dist.sf(chi2, df))
    return {"wins": wins, "games": games, "shares": {k: w / games[k] if games[k] else float("nan")
                                                       for k, w in wins.items()},
            "chi2": chi2, "df": df, "p": p}


def clock_counts(records: list[dict], labels: list[str]) -> dict[str, dict[str, int]]:
    """Per agent, over the games on a clock (timing.clock): its overruns (decisions past their time,
    forfeited or replaced by the fallback move), the games it forfeited on the clock (an overrun under
    overrun: forfeit), and those it forfeited hung (no answer within its time and the grace)."""
    out = {lab: {"clocked_games": 0, "overruns": 0, "clock_forfeits": 0, "hung": 0} for lab in labels}
    for rec in records:
        clock = (rec.get("timing") or {}).get("clock")
        if not clock:
            continue
        for seat in rec["seats"]:
            out[seat["label"]]["clocked_games"] += 1
        for ev in clock.get("overruns", []):
            out[rec["seats"][ev["seat"]]["label"]]["overruns"] += 1
        f = rec["result"]["forfeit"]
        if f is not None:
            if f["reason"].startswith("overran its clock"):
                out[f["label"]]["clock_forfeits"] += 1
            elif f["reason"].endswith("hung") or ": hung (" in f["reason"]:
                out[f["label"]]["hung"] += 1
    return out
