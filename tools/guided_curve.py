"""Strength per CPU time of the network-guided search against the policy it searches with (the curve in docs/strength.md).

The network-guided search (`guided`) against the plain policy it searches with (`learned`), as a
curve over the time per decision.

Each point is one agent spec (e.g. `guided:iterations=64`) in one seat of 4-player games against
three copies of one opponent spec (`rulebot`, `learned`, ...). The tested seat rotates: game i is
deal `seed + i // 4` with the agent in seat `i % 4`, so every deal is played from all four seats
(the nations win at very different rates, docs/nation_balance.md). A game's win is split among tied
winners; intervals are Wilson 95%. The time per decision is measured in the games themselves: the
wall time of the tested agent's act() at its decisions with two or more legal actions (a decision
with one is answered without search), as wall time and as the deciding thread's CPU time (the
curve's abscissa: on a shared machine wall time also counts the other processes).

    PYTHONPATH=. python tools/guided_curve.py --games 100 \
        --agents learned guided:iterations=16 guided:iterations=64 guided:iterations=256 \
        --opponents rulebot learned --out runs/guided_curve.jsonl --plot docs/images/guided_vs_policy.png

`--speed 1 4 16 64` only measures the search's simulations per CPU second at those batch sizes.

Games are appended to --out as they finish (a rerun with the same file resumes; --report only
summarizes it). --workers plays games in that many processes (torch one thread each).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agents import Agent, make_agent, parse_agent_spec  # noqa: E402
from agents.arena.play import run_game, seat_spec  # noqa: E402
from agents.arena.tournament.stats import wilson_interval  # noqa: E402

_AGENTS: dict[str, Agent] = {}


class _Timer(Agent):
    """Delegates to `agent`; records the wall time of each decision with two or more legal actions."""

    def __init__(self, agent: Agent):
        self.agent, self.times, self.cpu = agent, [], []
        self.needs_game = agent.needs_game

    def reset(self, seed=None):
        self.agent.reset(seed)

    def act(self, observation, action_mask, game=None):
        t0, c0 = time.perf_counter(), time.thread_time()
        a = self.agent.act(observation, action_mask, game)
        if int(np.count_nonzero(action_mask)) > 1:
            self.times.append(time.perf_counter() - t0)
            self.cpu.append(time.thread_time() - c0)
        return a


def _agent(spec: str, key: str | None = None) -> Agent:
    """The agent of `spec`, built once per process (under `key`, default the spec)."""
    key = key or spec
    if key not in _AGENTS:
        name, opts = parse_agent_spec(spec)
        _AGENTS[key] = make_agent(name, **opts)
    return _AGENTS[key]


def _opponent(spec: str, k: int) -> Agent:
    return _agent(spec, f"opponent {k}: {spec}")


def _init_worker() -> None:
    import torch

    torch.set_num_threads(1)


def play_one(task: tuple[str, str, int, int]) -> dict:
    """One game: `spec` in seat game % 4 of deal seed + game // 4, three `opponent`s elsewhere."""
    spec, opponent, game, seed = task
    seat = game % 4
    me = _Timer(_agent(spec))
    others = [_opponent(opponent, k) for k in range(3)]    # one instance per seat (each has its own seed)
    agents = others[:seat] + [me] + others[seat:]
    specs = [seat_spec(opponent) for _ in range(4)]
    specs[seat] = seat_spec(spec)
    rec = run_game(agents, specs, num_players=4, seed=seed + game // 4, game_index=game)
    win = rec["result"]["winners"]
    return {"agent": spec, "opponent": opponent, "game": game, "seat": seat, "seed": seed + game // 4,
            "share": (1.0 / len(win)) if seat in win else 0.0, "winners": win,
            "forfeit": rec["result"]["forfeit"], "decisions": rec["result"]["decisions"],
            "search_seconds": me.times, "search_cpu_seconds": me.cpu}


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def paired(records: list[dict], agent: str, baseline: str, opponent: str) -> dict | None:
    """The win-share difference agent - baseline over the games both played against `opponent` with
    the same index (the same deal and seat): mean and normal 95% interval, or None without pairs."""
    a = {r["game"]: r["share"] for r in records if r["agent"] == agent and r["opponent"] == opponent}
    b = {r["game"]: r["share"] for r in records if r["agent"] == baseline and r["opponent"] == opponent}
    d = np.array([a[g] - b[g] for g in sorted(set(a) & set(b))])
    if len(d) < 2:
        return None
    half = 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    return {"baseline": baseline, "pairs": int(len(d)), "diff": float(d.mean()),
            "ci95": [float(d.mean() - half), float(d.mean() + half)]}


def summary(records: list[dict], baseline: str | None = None) -> list[dict]:
    """One row per (agent, opponent): games, win rate, Wilson 95% interval, ms per searched decision,
    and (with `baseline`) the paired difference to the baseline agent against the same opponent."""
    rows = {}
    for r in records:
        rows.setdefault((r["agent"], r["opponent"]), []).append(r)
    out = []
    for (agent, opp), rs in rows.items():
        share = sum(r["share"] for r in rs)
        times = [t for r in rs for t in r["search_seconds"]]
        cpu = [t for r in rs for t in r.get("search_cpu_seconds", [])]
        lo, hi = wilson_interval(share, len(rs))
        out.append({"agent": agent, "opponent": opp, "games": len(rs), "win_rate": share / len(rs),
                    "ci95": [lo, hi], "forfeits": sum(1 for r in rs if r["forfeit"]),
                    "searched_decisions": len(times),
                    "ms_per_searched_decision": 1000 * float(np.mean(times)) if times else None,
                    "ms_p90": 1000 * float(np.percentile(times, 90)) if times else None,
                    "cpu_ms_per_searched_decision": 1000 * float(np.mean(cpu)) if cpu else None,
                    "paired": paired(records, agent, baseline, opp) if baseline and agent != baseline else None})
    return sorted(out, key=lambda x: (x["opponent"], x["agent"].split(":")[0], _x(x)))


BUDGET_OPTIONS = ("iterations", "time_ms")


def _options(spec: str) -> tuple[str, list[str]]:
    name, _, opts = spec.partition(":")
    return name, [o for o in opts.split(",") if o]


def family(spec: str) -> str:
    """The curve an agent spec belongs to: its name and every option but the budget, e.g.
    'guided (rollout_mix=1,bot_prior=0.5)' for 'guided:iterations=8,rollout_mix=1,bot_prior=0.5'."""
    name, opts = _options(spec)
    rest = [o for o in opts if o.split("=")[0] not in BUDGET_OPTIONS]
    return f"{name} ({','.join(rest)})" if rest else name


def budget(spec: str) -> str:
    """The budget options of an agent spec, e.g. 'iterations=8' (the point's label on its curve)."""
    return ",".join(o for o in _options(spec)[1] if o.split("=")[0] in BUDGET_OPTIONS)


def _x(row: dict) -> float:
    """The curve's abscissa: CPU ms per searched decision (wall ms for records without it)."""
    v = row.get("cpu_ms_per_searched_decision")
    return v if v is not None else (row["ms_per_searched_decision"] or 0.0)


def format_summary(rows: list[dict]) -> str:
    lines = [f"{'agent':<46}{'vs 3x':<12}{'games':>6}{'win rate':>10}{'95% interval':>18}{'cpu ms':>9}"
             f"{'wall ms':>9}{'p90 wall':>10}{'forfeits':>9}"]

    def ms(v, digits=2):
        return "-" if v is None else f"{v:.{digits}f}"

    for r in rows:
        lines.append(f"{r['agent']:<46}{r['opponent']:<12}{r['games']:>6}{r['win_rate']:>10.3f}"
                     f"{'[{:.3f}, {:.3f}]'.format(*r['ci95']):>18}{ms(r['cpu_ms_per_searched_decision']):>9}"
                     f"{ms(r['ms_per_searched_decision']):>9}{ms(r['ms_p90'], 1):>10}{r['forfeits']:>9}")
    lines.append("(ms: mean per decision with a choice; cpu = the deciding thread's CPU time, steadier than wall "
                 "time on a shared machine)")
    for r in rows:
        if r.get("paired"):
            p = r["paired"]
            lines.append(f"{r['agent']} - {p['baseline']}, vs 3x {r['opponent']}, same {p['pairs']} deals and seats: "
                         f"{p['diff']:+.3f} [{p['ci95'][0]:+.3f}, {p['ci95'][1]:+.3f}]")
    return "\n".join(lines)


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 5.2))
    groups = {}
    for r in rows:
        groups.setdefault((family(r["agent"]), r["opponent"]), []).append(r)
    for (fam, opp), rs in sorted(groups.items()):
        rs = sorted(rs, key=_x)
        x = [_x(r) for r in rs]
        y = [r["win_rate"] for r in rs]
        err = [[r["win_rate"] - r["ci95"][0] for r in rs], [r["ci95"][1] - r["win_rate"] for r in rs]]
        searched = fam.startswith("guided")
        ax.errorbar(x, y, yerr=err, marker="o" if searched else "s", capsize=3,
                    linestyle="-" if len(rs) > 1 else "none", label=f"{fam} vs 3 {opp}")
        if searched:
            for r, xx, yy in zip(rs, x, y):
                ax.annotate(budget(r["agent"]), (xx, yy), textcoords="offset points", xytext=(4, -12), fontsize=7)
    ax.axhline(0.25, color="grey", linestyle=":", linewidth=1, label="fair share (25%)")
    ax.set_xscale("log")
    ax.set_xlabel("CPU ms per decision with a choice (measured in the games, one thread)")
    ax.set_ylabel("win rate of the tested seat (Wilson 95%)")
    n = sorted({r["games"] for r in rows})
    ax.set_title(f"guided search vs the plain policy, 4 players, seats rotated ({'/'.join(map(str, n))} games a point)",
                 fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def speed(batch_sizes: list[int], iterations: int = 256) -> list[dict]:
    """Simulations per CPU second of `guided` at each batch size: every 10th decision with a choice
    of three 4-player rule-bot games (deals 100-102), `iterations` simulations each."""
    from v1919_env.game import Game

    positions = []
    for seed in range(100, 103):
        g = Game.new(4, seed=seed)
        bots = [make_agent("rulebot") for _ in range(4)]
        k = 0
        while not g.is_over:
            if len(g.legal_actions()) > 1:
                if k % 10 == 0:
                    positions.append(g.clone())
                k += 1
            g.step(bots[g.current_player].act(None, g.action_mask(), g.clone()))
    out = []
    for bs in batch_sizes:
        a = make_agent("guided", iterations=iterations, batch_size=bs, seed=0)
        a.act(None, positions[0].action_mask(), positions[0].clone())           # compile, load
        c0, sims = time.thread_time(), 0
        for p in positions:
            a.act(None, p.action_mask(), p.clone())
            sims += a.last_stats["simulations"]
        dt = time.thread_time() - c0
        out.append({"batch_size": bs, "positions": len(positions), "simulations_per_cpu_s": sims / dt,
                    "cpu_ms_per_decision": 1000 * dt / len(positions)})
        print(f"batch_size={bs}: {sims / dt:,.0f} simulations per CPU second, "
              f"{1000 * dt / len(positions):.1f} CPU ms per {iterations}-simulation decision ({len(positions)} positions)")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agents", nargs="+", default=["learned", "guided:iterations=16", "guided:iterations=64",
                                                    "guided:iterations=256"])
    ap.add_argument("--opponents", nargs="+", default=["rulebot", "learned"])
    ap.add_argument("--games", type=int, default=100, help="games per point (a multiple of 4 rotates evenly)")
    ap.add_argument("--seed", type=int, default=0, help="deal of the first four games")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", default="runs/guided_curve.jsonl", help="game records, appended (resumes)")
    ap.add_argument("--plot", default=None, help="write the curve as a PNG")
    ap.add_argument("--report", action="store_true", help="only summarize the records in --out")
    ap.add_argument("--speed", nargs="*", type=int, default=None, metavar="BATCH",
                    help="only measure simulations per CPU second at these batch sizes (default 1 4 16 64)")
    ap.add_argument("--baseline", default="learned", help="paired differences to this agent's games (same "
                    "deal, seat and opponent); '' for none")
    args = ap.parse_args(argv)
    if args.speed is not None:
        _init_worker()
        speed(args.speed or [1, 4, 16, 64])
        return 0
    out = Path(args.out)
    if not args.report:
        out.parent.mkdir(parents=True, exist_ok=True)
        done = {(r["agent"], r["opponent"], r["game"]) for r in _read(out)}
        tasks = [(a, o, g, args.seed) for g in range(args.games) for o in args.opponents for a in args.agents
                 if not (a == o) and (a, o, g) not in done]
        t0 = time.perf_counter()
        with out.open("a") as fh:
            if args.workers > 1:
                import multiprocessing as mp

                with mp.get_context("spawn").Pool(args.workers, initializer=_init_worker) as pool:
                    for i, rec in enumerate(pool.imap_unordered(play_one, tasks), 1):
                        fh.write(json.dumps(rec) + "\n")
                        fh.flush()
                        _progress(i, len(tasks), t0)
            else:
                _init_worker()
                for i, task in enumerate(tasks, 1):
                    fh.write(json.dumps(play_one(task)) + "\n")
                    fh.flush()
                    _progress(i, len(tasks), t0)
    records = [r for r in _read(out) if r["agent"] in args.agents and r["opponent"] in args.opponents] \
        if not args.report else _read(out)
    rows = summary(records, args.baseline or None)
    print(format_summary(rows))
    if args.plot:
        plot(rows, args.plot)
        print(f"plot: {args.plot}")
    return 0


def _progress(i: int, n: int, t0: float) -> None:
    if i % 10 == 0 or i == n:
        el = time.perf_counter() - t0
        print(f"  {i}/{n} games, {el / 60:.1f} min, ~{el / i * (n - i) / 60:.1f} min left", file=sys.stderr, flush=True)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    raise SystemExit(main())
