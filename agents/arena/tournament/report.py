"""Tournament reports, all derived from games.jsonl: results.md, results.csv and ratings.png."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from v1919_env.core.vocab import NATIONS

from .stats import SCORE_PARTS, agent_rows, clock_counts, equal_shares_test, game_counts, seat_win_shares

CSV_COLUMNS = ("agent", "games", "wins", "win_rate", "win_low", "win_high", "forfeits", "overruns",
               *(f"mean_{k}" for k in SCORE_PARTS), "mean_rank", "mu", "sigma", "ordinal", "cpu_ms_per_decision",
               "ms_per_decision")


def markdown_table(rows: list[dict]) -> str:
    head = ("| agent | games | wins | win rate [95% CI] | mean score | issues | flags | strategy | happiness "
            "| mean rank | mu | sigma | ordinal | forfeits | CPU ms/decision |")
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in rows:
        lines.append(
            f"| {r['agent']} | {r['games']} | {r['wins']:g} | {100 * r['win_rate']:.1f}% "
            f"[{100 * r['win_low']:.1f}, {100 * r['win_high']:.1f}] | {r['mean_total']:.1f} | {r['mean_issues']:.1f} "
            f"| {r['mean_flags']:.2f} | {r['mean_strategy']:.1f} | {r['mean_happiness']:.2f} | {r['mean_rank']:.2f} "
            f"| {r['mu']:.2f} | {r['sigma']:.2f} | {r['ordinal']:.2f} | {r['forfeits']} "
            f"| {r['cpu_ms_per_decision']:.3f} |")
    return "\n".join(lines)


def write_reports(records: list[dict], cfg, out_dir, refused=()) -> list[dict]:
    """Write results.md, results.csv and ratings.png into out_dir; returns the agent rows. `refused`:
    (game, why) of the records not counted (runner.verify_records), listed in results.md."""
    out = Path(out_dir)
    rows = agent_rows(records, cfg.labels)
    counts = game_counts(records)
    with open(out / "results.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in CSV_COLUMNS})
    forfeits = [r for r in records if r["result"]["forfeit"] is not None]
    md = [f"# Tournament: {cfg.name}", "",
          f"{counts['games']} games of {cfg.num_players} players (variant {cfg.variant}"
          f"{', negotiation' if cfg.negotiation else ''}; card set "
          f"{records[0]['card_set']['label'] if records else '?'}), base seed {cfg.seed}; "
          f"{counts['forfeited']} forfeited, {counts['truncated']} truncated by the safety cap, "
          f"{counts['shared_wins']} with a shared win.", "",
          markdown_table(rows), "",
          "Wins by seat (whoever sat there): " + ", ".join(
              f"{NATIONS[p].upper()} {100 * w:.1f}%" for p, w in enumerate(seat_win_shares(records))) + ".", "",
          "Rows: best win rate first, then the better mean rank. "
          "Wins: a shared win counts 1/k to each of the k winners; the interval is Wilson's 95% score interval. "
          "Mean scores are over the games that ended by the rules (not forfeited); ranks use the rules' "
          "tie-break (total, happiness, issues controlled), tied seats sharing the better rank. Ratings: "
          "OpenSkill Plackett-Luce over the games in index order, ordinal = mu - 3 sigma, shown for reference: "
          "its order can differ from the win rates' (`v1919 ladder` rates with the Luce model, whose order "
          "agrees with them in a balanced schedule; docs/ladder.md). Every figure is "
          "computed from games.jsonl (`v1919 tournament CONFIG --report-only` recomputes it).", ""]
    kinds = {(a["agent"], json.dumps(a["options"], sort_keys=True)) for a in cfg.agents}
    if len(kinds) == 1 and len(cfg.agents) == cfg.num_players == 4 and records:
        t = equal_shares_test(records, cfg.labels)
        md += ["## Copies of one agent", "",
               "The agents are copies of one agent, so they should win equal shares: "
               + ", ".join(f"{lab} {100 * t['shares'][lab]:.1f}%" for lab in cfg.labels)
               + f"; Pearson's chi-square of equal shares {t['chi2']:.2f} on {t['df']} degrees of freedom, "
                 f"p = {t['p']:.3g} (docs/tournaments.md, 'Equal agents, equal results').", ""]
    md += clock_section(records, [r["agent"] for r in rows])
    if forfeits:
        md += ["## Forfeits", ""]
        md += [f"- game {r['game']}: {r['result']['forfeit']['label']} (seat {r['result']['forfeit']['seat']}) at step "
               f"{r['result']['forfeit']['step']}: {r['result']['forfeit']['reason']}" for r in forfeits[:50]]
        if len(forfeits) > 50:
            md.append(f"- ... and {len(forfeits) - 50} more (see games.jsonl)")
        md.append("")
    if refused:
        md += ["## Games not counted", "", f"{len(refused)} records of games.jsonl are not the games this tournament "
               "dealt, or do not replay to their recorded result (edited?); no figure above counts them:", ""]
        md += [f"- game {g}: {why}" for g, why in list(refused)[:50]]
        md.append("")
    (out / "results.md").write_text("\n".join(md))
    plot_ratings(rows, out / "ratings.png", f"{cfg.name}: {counts['games']} games, {cfg.num_players} players",
                 cfg.num_players)
    return rows


def clock_section(records: list[dict], labels: list[str]) -> list[str]:
    """The "Clocks" section of a report (no lines when no game was on a clock): per agent, the
    overruns and the games forfeited on the clock or hung (stats.clock_counts)."""
    counts = clock_counts(records, labels)
    clocked = sum(1 for r in records if (r.get("timing") or {}).get("clock"))
    if not clocked:
        return []
    lines = ["## Clocks", "", f"{clocked} games on a clock. Overruns: decisions longer than the clock allowed "
             "(each forfeited its game or was replaced by the fallback move); hung: no answer within the time and "
             "the grace.", "", "| agent | overruns | forfeited on the clock | forfeited hung |", "|---|---|---|---|"]
    lines += [f"| {lab} | {c['overruns']} | {c['clock_forfeits']} | {c['hung']} |" for lab, c in counts.items()]
    return lines + [""]


def plot_ratings(rows: list[dict], path, title: str, num_players: int) -> None:
    """Two panels: OpenSkill mu with +-2 sigma bars (ordinal marked), and win rate with its 95% interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = rows[::-1]                           # best at the top
    names = [r["agent"] for r in rows]
    y = range(len(rows))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 1.6 + 0.55 * len(rows)), sharey=True)
    ax1.errorbar([r["mu"] for r in rows], y, xerr=[2 * r["sigma"] for r in rows], fmt="o", capsize=4,
                 label="mu ± 2 sigma")
    ax1.plot([r["ordinal"] for r in rows], y, "k|", markersize=14, label="ordinal (mu - 3 sigma)")
    ax1.set_yticks(list(y), names)
    ax1.set_xlabel("OpenSkill rating (Plackett-Luce)")
    ax1.legend(loc="lower left", bbox_to_anchor=(0, 1), ncol=2, fontsize=8, frameon=False)
    rate = [100 * r["win_rate"] for r in rows]
    err = [[100 * max(0.0, r["win_rate"] - r["win_low"]) for r in rows],
           [100 * max(0.0, r["win_high"] - r["win_rate"]) for r in rows]]      # rounding can cross the rate
    ax2.errorbar(rate, y, xerr=err, fmt="o", color="tab:green", capsize=4)
    ax2.axvline(100 / num_players, color="grey", lw=0.8, ls="--", label=f"1/{num_players} (equal agents)")
    ax2.legend(loc="lower left", bbox_to_anchor=(0, 1), fontsize=8, frameon=False)
    ax2.set_xlabel("win rate, % (95% Wilson interval)")
    ax2.set_xlim(0, 100)
    for ax in (ax1, ax2):
        ax.grid(axis="x", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
