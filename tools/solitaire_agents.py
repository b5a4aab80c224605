"""Solitaire scores of the agents: mean VP, win rates at levels 20 and 25, and a VP histogram.

Solitaire score of the agents: mean VP, win rates at the levels 20 and 25 with Wilson 95%
intervals, and the VP distribution of each agent over seeded solitaire games (a histogram PNG).

    PYTHONPATH=. python tools/solitaire_agents.py --agents random,rulebot,greedy --games 200 \
        [--target-vp 20] [--levels 20 25] [--faction uk] [--plot solitaire_vp.png] \
        [--json results.json] [--curve curve.png [--include earlier.json ...]]

`--json` keeps the figures of every agent (its final VP of every game too); `--curve` plots each
agent's mean VP (95% interval) against its time per decision, with the agents of `--include`d
earlier runs (for example another budget of the same search played in another process).

The games are played at `--target-vp` (the level the agents are told); the level does not change the
rules (the game always runs to its end, EN:838), so every level's win rate reads the same final VP:
a game is won at level L when the player ends with L or more VP (EN:959). The mean and largest number
of decisions per game show an agent that scores by making the game long (docs/solitaire.md).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from agents.arena.play import parse_agents_arg
from agents.arena.solitaire_score import measure


def plot_distribution(results: list[dict], path: str, target: int, levels) -> None:
    """One histogram of final VP per agent (one bar per VP value), the levels marked."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    top = max(max(r["vp"]) for r in results)
    bins = np.arange(-0.5, max(top, *levels) + 1.5)
    fig, axes = plt.subplots(len(results), 1, figsize=(8, 2.2 * len(results)), sharex=True, squeeze=False)
    for ax, r in zip(axes[:, 0], results):
        ax.hist(r["vp"], bins=bins, color="#4477aa")
        for level in levels:
            ax.axvline(level - 0.5, color="#cc3311", linestyle="--", linewidth=1)
        won = ", ".join(f"{100 * r['wins'][lv] / r['games']:.1f}% at {lv}" for lv in levels)
        ax.set_title(f"{r['agent']}: mean {r['mean_vp']:.1f} VP over {r['games']} games; won {won}", fontsize=9)
        ax.set_ylabel("games")
    axes[-1, 0].set_xlabel(f"final VP of the solitaire player (games played at level {target}; dashed: levels)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


CURVE_KEYS = {"agent", "games", "mean_vp", "se", "ms_per_decision"}
"""The fields of a --json figure that --curve plots."""


def plot_curve(results: list[dict], path: str, target: int) -> None:
    """Mean VP (1.96 standard errors) against milliseconds per decision, one point per agent; the
    budgets of one agent (ismcts:iterations=50, =200, ...) joined by a line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    families: dict[str, list[dict]] = {}
    for r in results:
        families.setdefault(r["agent"].split(":")[0], []).append(r)
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for name, rs in families.items():
        rs = sorted(rs, key=lambda r: r["ms_per_decision"])
        x = [r["ms_per_decision"] for r in rs]
        y = [r["mean_vp"] for r in rs]
        ax.errorbar(x, y, yerr=[1.96 * r["se"] for r in rs], fmt="o-" if len(rs) > 1 else "o", capsize=3, label=name)
        for r in rs:
            ax.annotate(r["agent"].split(":", 1)[1] if ":" in r["agent"] else r["agent"], (r["ms_per_decision"],
                        r["mean_vp"]), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.axhline(target, color="#cc3311", linestyle="--", linewidth=1, label=f"level {target}")
    ax.set_xscale("log")
    lo, hi = min(r["ms_per_decision"] for r in results), max(r["ms_per_decision"] for r in results)
    ax.set_xticks([t for t in (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200) if lo / 2 <= t <= hi * 2])
    ax.xaxis.set_major_formatter(ScalarFormatter())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("milliseconds per decision (wall clock over whole games, the bots' turns included)")
    ax.set_ylabel(f"mean final VP ({results[0]['games']} games each, 95% interval)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agents", default="random,rulebot,greedy", help="agents (comma-separated, as for v1919 play)")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0, help="first game seed")
    ap.add_argument("--target-vp", type=int, default=20, help="the level the games are played at")
    ap.add_argument("--levels", type=int, nargs="+", default=[20, 25], help="levels to report win rates at")
    ap.add_argument("--faction", default=None)
    ap.add_argument("--plot", default=None, metavar="PNG", help="write the VP histograms here")
    ap.add_argument("--json", default=None, metavar="JSON", help="write every agent's figures here")
    ap.add_argument("--curve", default=None, metavar="PNG", help="plot mean VP against time per decision here")
    ap.add_argument("--include", nargs="*", default=[], metavar="JSON", help="earlier --json results for --curve")
    a = ap.parse_args()
    if a.games < 1:
        ap.error(f"--games: at least 1, got {a.games}")
    if a.include and not a.curve:
        ap.error("--include: only with --curve")
    earlier = []
    for f in a.include:           # read before the games are played, so a bad file costs nothing
        try:
            rows = json.loads(Path(f).read_text())
            if not isinstance(rows, list) or not all(isinstance(r, dict) and CURVE_KEYS <= set(r) for r in rows):
                raise ValueError(f"not a list of --json figures (each with {', '.join(sorted(CURVE_KEYS))})")
        except OSError as e:
            ap.error(f"--include {f}: cannot read it ({e.strerror})")
        except ValueError as e:      # not JSON (UnicodeDecodeError and JSONDecodeError are ValueErrors), or not figures
            ap.error(f"--include {f}: {e}")
        earlier += rows
    solitaire = {"faction": a.faction, "target_vp": a.target_vp}
    print(f"{'agent':<24} {'games':>5} {'mean VP':>8} {'(se)':>6} {'max':>4} "
          + " ".join(f"{'won at ' + str(lv):>22}" for lv in a.levels) + f" {'decisions':>10} {'(max)':>7} {'s/game':>7}")
    results = []
    for spec in parse_agents_arg(a.agents):
        try:
            r = measure(spec, a.games, a.seed, solitaire, a.levels)
        except RuntimeError as e:          # the agent forfeited a game
            raise SystemExit(str(e)) from None
        results.append(r)
        won = " ".join(f"{100 * r['wins'][lv] / r['games']:>6.1f}% [{100 * r['win_intervals'][lv][0]:>4.1f}, "
                       f"{100 * r['win_intervals'][lv][1]:>4.1f}]" for lv in a.levels)
        print(f"{r['agent']:<24} {r['games']:>5} {r['mean_vp']:>8.2f} {r['se']:>6.2f} {r['max_vp']:>4} {won} "
              f"{r['decisions']:>10.0f} {r['max_decisions']:>7} {r['s_per_game']:>7.2f}", flush=True)
    if a.plot:
        plot_distribution(results, a.plot, a.target_vp, a.levels)
        print(f"VP histograms: {a.plot}")
    if a.json:
        Path(a.json).write_text(json.dumps([{**r, "wins": {str(k): v for k, v in r["wins"].items()},
                                             "win_intervals": {str(k): v for k, v in r["win_intervals"].items()}}
                                            for r in results], indent=1))
        print(f"figures: {a.json}")
    if a.curve:
        plot_curve(earlier + results, a.curve, a.target_vp)
        print(f"VP against time per decision: {a.curve}")


if __name__ == "__main__":
    main()
