"""The ladder: every agent against every other in seat-rotated games on duplicate deals, and the
report users cite (`v1919 ladder CONFIG.yaml`, docs/ladder.md).

A ladder is a tournament (agents/tournament) with `duplicate: true`: the games of one schedule block
(one set of agents, its seating rotated so each sits in every seat once) share one game seed, so
every deal is played from every seat and the luck of the deal and of the nation cancels between the
agents. The report, computed from games.jsonl alone:

- win rate with a 95% interval that respects the duplication (games of one deal are not
  independent: a cluster-robust normal interval over deals), next to the Wilson interval the same
  number of independent games would have, and the ratio of the widths (how much the duplicate
  deals shrink the interval);
- mean rank;
- the rating: the Luce (Plackett-Luce first-place) model fitted by maximum likelihood, P(a wins a
  game) = g_a / sum of g over the agents seated, on the Elo scale (400 log10 g, mean 1500). It is a
  model of who wins, so in a balanced schedule (every agent meets the same opponents in the same
  seats) its order is the order of the win counts, and it also compares agents that never met.
  OpenSkill, updated game by game, weighs late games more and ranks by mu - 3 sigma, so its order
  can contradict the win rates; it is kept in the tournament report only;
- the head-to-head matrix: in the games where both sat, how often the row agent finished ahead of
  the column agent (a tie counts half), as a table and a PNG;
- per-nation win rates of each agent;
- time per decision in the games (the agents' own time at real game positions, from the records).
"""
from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path

import numpy as np

from v1919_env.core.vocab import PLAYER_NATIONS

from .tournament.report import clock_section
from .tournament.stats import Z95, agent_rows, game_counts, wilson_interval

ELO = 400.0 / math.log(10.0)        # Elo points per natural-log unit of strength


# ----------------------------------------------------------------------------- win shares
def win_shares(rec: dict) -> list[float]:
    """Per seat: its share of the game's win (a win shared by k seats counts 1/k to each)."""
    winners = rec["result"]["winners"]
    return [1.0 / len(winners) if p in winners else 0.0 for p in range(len(rec["seats"]))]


def deal_key(rec: dict):
    """The deal a game was played on: its game seed (the games of a duplicate deal share it)."""
    return rec["seed"]


# ----------------------------------------------------------------------------- the rating
def luce_strengths(records: list[dict], labels: list[str], prior_games: float = 1.0,
                   iters: int = 2000, tol: float = 1e-10) -> dict[str, float]:
    """Maximum-likelihood strengths g (natural log) of the Luce first-place model (module docstring),
    by Hunter's MM iteration. Each agent also plays `prior_games` virtual games against an agent of
    strength 1 and wins half of them, so an agent without a win keeps a finite rating."""
    idx = {lab: k for k, lab in enumerate(labels)}
    seats = [np.array([idx[s["label"]] for s in rec["seats"]]) for rec in records]
    wins = np.full(len(labels), 0.5 * prior_games)
    for rec, st in zip(records, seats):
        wins[st] += np.asarray(win_shares(rec))
    g = np.ones(len(labels))
    for _ in range(iters):
        denom = np.full(len(labels), prior_games) / (g + 1.0)
        for st in seats:
            denom[st] += 1.0 / g[st].sum()
        new = wins / denom
        new /= math.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(g))) < tol
        g = new
        if done:
            break
    return {lab: float(math.log(g[idx[lab]])) for lab in labels}


def luce_ratings(records: list[dict], labels: list[str], bootstrap: int = 200, seed: int = 0) -> dict:
    """label -> (rating, low, high): the Luce rating on the Elo scale (mean 1500) and a 95% interval
    from resampling whole deals (percentile bootstrap)."""
    point = luce_strengths(records, labels)
    by_deal = defaultdict(list)
    for rec in records:
        by_deal[deal_key(rec)].append(rec)
    deals = list(by_deal.values())
    rng = np.random.default_rng(seed)
    samples = {lab: [] for lab in labels}
    for _ in range(bootstrap if len(deals) > 1 else 0):
        pick = rng.integers(len(deals), size=len(deals))
        s = luce_strengths([r for k in pick for r in deals[k]], labels, iters=300, tol=1e-7)
        for lab in labels:
            samples[lab].append(s[lab])
    out = {}
    for lab in labels:
        r = 1500.0 + ELO * point[lab]
        if samples[lab]:
            lo, hi = np.percentile(samples[lab], [2.5, 97.5])
            out[lab] = (r, 1500.0 + ELO * lo, 1500.0 + ELO * hi)
        else:
            out[lab] = (r, float("nan"), float("nan"))
    return out


# ----------------------------------------------------------------------------- intervals
def cluster_interval(records: list[dict], label: str, z: float = Z95) -> tuple[float, float, float, float]:
    """(win rate, low, high, standard error) of `label` with the games of a deal as one cluster
    (cluster-robust variance of a ratio estimator: sum over deals of (wins - p * games)^2 / games^2)."""
    per_deal = defaultdict(lambda: [0.0, 0])
    for rec in records:
        shares = win_shares(rec)
        for p, s in enumerate(rec["seats"]):
            if s["label"] == label:
                d = per_deal[deal_key(rec)]
                d[0] += shares[p]
                d[1] += 1
    n = sum(d[1] for d in per_deal.values())
    if n == 0:
        return float("nan"), 0.0, 1.0, float("nan")
    p = sum(d[0] for d in per_deal.values()) / n
    c = len(per_deal)
    var = sum((w - p * k) ** 2 for w, k in per_deal.values()) / n ** 2
    if c > 1:
        var *= c / (c - 1)            # small-sample correction of the cluster-robust variance
    se = math.sqrt(var)
    return p, max(0.0, p - z * se), min(1.0, p + z * se), se


# ----------------------------------------------------------------------------- tables
def head_to_head(records: list[dict], labels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(share, games): share[a, b] is how often a finished ahead of b in the games where both sat
    (a tie in rank counts half); games[a, b] how many such games; the diagonal is NaN."""
    idx = {lab: k for k, lab in enumerate(labels)}
    m = len(labels)
    ahead, games = np.zeros((m, m)), np.zeros((m, m), np.int64)
    for rec in records:
        ranks = rec["result"]["ranks"]
        who = [idx[s["label"]] for s in rec["seats"]]
        for p, a in enumerate(who):
            for q, b in enumerate(who):
                if p == q:
                    continue
                games[a, b] += 1
                ahead[a, b] += 1.0 if ranks[p] < ranks[q] else (0.5 if ranks[p] == ranks[q] else 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(games > 0, ahead / np.maximum(games, 1), np.nan)
    np.fill_diagonal(share, np.nan)
    return share, games


def nation_table(records: list[dict], labels: list[str]) -> dict[str, dict[str, tuple[float, int]]]:
    """label -> nation -> (win rate, games) with the agent seated as that nation."""
    acc = {lab: defaultdict(lambda: [0.0, 0]) for lab in labels}
    for rec in records:
        nations = PLAYER_NATIONS[rec["num_players"]]
        shares = win_shares(rec)
        for p, s in enumerate(rec["seats"]):
            a = acc[s["label"]][nations[p]]
            a[0] += shares[p]
            a[1] += 1
    return {lab: {nat: (w / n if n else float("nan"), n) for nat, (w, n) in acc[lab].items()} for lab in labels}


def ladder_rows(records: list[dict], labels: list[str], bootstrap: int = 200) -> list[dict]:
    """One row per agent, best rating first: the tournament figures (agent_rows) plus the duplicate-deal
    interval, the independent-games interval and the Luce rating with its interval."""
    base = {r["agent"]: r for r in agent_rows(records, labels)}
    ratings = luce_ratings(records, labels, bootstrap=bootstrap)
    rows = []
    for lab in labels:
        r = dict(base[lab])
        p, lo, hi, se = cluster_interval(records, lab)
        wlo, whi = wilson_interval(r["wins"], r["games"])
        r.update(dup_low=lo, dup_high=hi, dup_se=se, indep_low=wlo, indep_high=whi,
                 indep_se=math.sqrt(p * (1 - p) / r["games"]) if r["games"] else float("nan"),
                 rating=ratings[lab][0], rating_low=ratings[lab][1], rating_high=ratings[lab][2])
        r["shrink"] = r["dup_se"] / r["indep_se"] if r["indep_se"] else float("nan")
        rows.append(r)
    return sorted(rows, key=lambda r: -r["rating"])


# ----------------------------------------------------------------------------- the report
def plot_head_to_head(share: np.ndarray, labels: list[str], path, title: str) -> None:
    """The head-to-head matrix as a heat map with the percentages written in."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    m = len(labels)
    fig, ax = plt.subplots(figsize=(2.2 + 0.95 * m, 1.6 + 0.8 * m))
    im = ax.imshow(100 * share, cmap="RdBu", vmin=0, vmax=100)
    for a in range(m):
        for b in range(m):
            if not np.isnan(share[a, b]):
                ax.text(b, a, f"{100 * share[a, b]:.0f}", ha="center", va="center", fontsize=9,
                        color="white" if abs(share[a, b] - 0.5) > 0.3 else "black")
    ax.set_xticks(range(m), labels, rotation=35, ha="right")
    ax.set_yticks(range(m), labels)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    fig.colorbar(im, ax=ax, label="% of shared games finished ahead")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _pct(x: float) -> str:
    return "–" if x != x else f"{100 * x:.1f}"


def _ratio(x: float) -> str:
    return "–" if x != x else f"{x:.2f}"      # none where the agent's games do not vary (always lost, say)


def write_ladder(records: list[dict], cfg, out_dir, doc=None, command: str = "", bootstrap: int = 200) -> list[dict]:
    """Write ladder.md, ladder.csv and head_to_head.png into out_dir (and the Markdown also to `doc`,
    with the PNG beside it, when given); returns the rows."""
    import csv

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    labels = cfg.labels
    rows = ladder_rows(records, labels, bootstrap=bootstrap)
    share, games = head_to_head(records, labels)
    nations = nation_table(records, labels)
    counts = game_counts(records)
    deals = len({deal_key(r) for r in records})
    order = [r["agent"] for r in rows]
    cols = ["agent", "games", "wins", "win_rate", "dup_low", "dup_high", "indep_low", "indep_high", "shrink",
            "mean_rank", "rating", "rating_low", "rating_high", "ms_per_decision", "cpu_ms_per_decision"]
    with open(out / "ladder.csv", "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: r[k] for k in cols})
    png = "head_to_head.png"
    title = f"{cfg.name}: {counts['games']} games, {cfg.num_players} players"
    plot_head_to_head(share[np.ix_([labels.index(a) for a in order], [labels.index(a) for a in order])], order,
                      out / png, title)
    nat_names = PLAYER_NATIONS[cfg.num_players]
    md = [f"# Ladder: {cfg.name}", "",
          f"{counts['games']} games of {cfg.num_players} players on {deals} deals "
          f"({'duplicate deals: each played in every seat rotation' if getattr(cfg, 'duplicate', False) else 'independent deals'}),"
          f" base seed {cfg.seed}, variant {cfg.variant}; {counts['forfeited']} forfeited, {counts['truncated']} "
          f"truncated by the safety cap, {counts['shared_wins']} with a shared win.", ""]
    if command:
        md += ["Made by:", "", "```bash", command, "```", ""]
    md += ["| agent | games | win rate | 95% interval (deals as clusters) | independent games' interval | width ratio "
           "| mean rank | Luce rating [95%] | ms / decision |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        md.append(f"| {r['agent']} | {r['games']} | {_pct(r['win_rate'])}% | [{_pct(r['dup_low'])}, {_pct(r['dup_high'])}] "
                  f"| [{_pct(r['indep_low'])}, {_pct(r['indep_high'])}] | {_ratio(r['shrink'])} | {r['mean_rank']:.2f} "
                  f"| {r['rating']:.0f} [{r['rating_low']:.0f}, {r['rating_high']:.0f}] | {r['ms_per_decision']:.2f} |")
    shrink = [r["shrink"] for r in rows if r["shrink"] == r["shrink"]]
    md += ["", f"Fair share: {100 / cfg.num_players:.1f}%. Width ratio: the interval over deals against the interval "
           f"of as many independent games (binomial); below 1 the duplicate deals made the estimate sharper "
           f"(median {np.median(shrink):.2f})." if shrink else "", "",
           "The rating is the Luce first-place model fitted by maximum likelihood (P(a wins) = g_a / sum of g over "
           "the agents at the table), on the Elo scale (400 log10 g, mean 1500), with a 95% interval from "
           "resampling deals. It is a model of who wins, so in this balanced schedule its order is the order of "
           "the win rates; OpenSkill, updated game by game, can contradict them (agents/arena/ladder.py).", "",
           "## Head to head", "", f"![head to head]({png})", "",
           "How often the row agent finished ahead of the column agent in the games where both sat (ties count "
           "half), %:", "",
           "| agent | " + " | ".join(order) + " |", "|---|" + "---|" * len(order)]
    for a in order:
        ia = labels.index(a)
        md.append(f"| {a} | " + " | ".join(
            "–" if a == b else f"{_pct(share[ia, labels.index(b)])} ({games[ia, labels.index(b)]})" for b in order) + " |")
    md += ["", "## Win rate by nation", "", "The agent's win rate when seated as each nation, % (games):", "",
           "| agent | " + " | ".join(n.upper() if len(n) <= 3 else n.capitalize() for n in nat_names) + " |",
           "|---|" + "---|" * len(nat_names)]
    for a in order:
        md.append(f"| {a} | " + " | ".join(f"{_pct(nations[a].get(n, (float('nan'), 0))[0])} "
                                           f"({nations[a].get(n, (0, 0))[1]})" for n in nat_names) + " |")
    md += ["", "Time per decision: the agent's own wall-clock time in `act()` over every decision it took in these "
           "games (real game positions, one process per game worker).", ""]
    md += clock_section(records, order)
    forfeits = [r for r in records if r["result"]["forfeit"] is not None]
    if forfeits:
        md += ["## Forfeits", ""] + [f"- game {r['game']}: {r['result']['forfeit']['label']} at step "
                                      f"{r['result']['forfeit']['step']}: {r['result']['forfeit']['reason']}"
                                      for r in forfeits[:50]]
        md += ([f"- ... and {len(forfeits) - 50} more (see games.jsonl)"] if len(forfeits) > 50 else []) + [""]
    text = "\n".join(md)
    (out / "ladder.md").write_text(text)
    if doc is not None:
        doc = Path(doc)
        doc.parent.mkdir(parents=True, exist_ok=True)
        img = doc.parent / "images" / f"{doc.stem}_head_to_head.png"
        img.parent.mkdir(parents=True, exist_ok=True)
        img.write_bytes((out / png).read_bytes())
        doc.write_text(text.replace(f"]({png})", f"](images/{img.name})"))
    return rows
