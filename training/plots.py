"""The learning curve of a run, from its evaluations.csv alone: win rate with its 95% interval against
each evaluation opponent over training steps (left), and the learner's mean final score (right:
progress shows there before wins do against a strong opponent)."""
from __future__ import annotations

from pathlib import Path

from .evaluate import read_rows


def save_figure(fig, png_path) -> Path:
    """Lay the figure out, write it as a PNG (its folder made) and free it; returns the path."""
    import matplotlib.pyplot as plt

    fig.tight_layout()
    path = Path(png_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_learning_curve(csv_path, png_path, title: str = "", num_players: int = 4) -> Path | None:
    """Write the PNG; None when the CSV has no rows yet."""
    rows = read_rows(csv_path)
    if not rows:
        return None
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4.2), dpi=110, width_ratios=(3, 2))
    for opp in dict.fromkeys(r["opponent"] for r in rows):
        rs = sorted((r for r in rows if r["opponent"] == opp), key=lambda r: r["step"])
        x = [r["step"] for r in rs]
        label = "solitaire: games won at the level" if num_players == 1 else f"vs {num_players - 1} x {opp}"
        ax.plot(x, [r["win_rate"] for r in rs], marker="o", label=label)
        ax.fill_between(x, [r["win_low"] for r in rs], [r["win_high"] for r in rs], alpha=0.2)
        ax2.plot(x, [r["mean_total"] for r in rs], marker="o",
                 label="solitaire: the player's VP" if num_players == 1 else label)
    if num_players > 1:
        ax.axhline(1.0 / num_players, color="grey", linestyle="--", linewidth=1, label=f"equal share 1/{num_players}")
    ax.set_ylim(0, 1)
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(title or "learning curve")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax2.set_xlabel("learner steps")
    from matplotlib.ticker import FuncFormatter
    for a in (ax, ax2):
        a.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1e6:g}M" if v >= 1e6 else f"{v / 1e3:g}k"))
    ax2.set_ylabel("learner's mean final score (VP)")
    ax2.grid(alpha=0.3)
    ax2.legend(loc="lower right", fontsize=8)
    return save_figure(fig, png_path)


def plot_reliability(win_prediction: dict, png_path, title: str = "") -> Path:
    """The reliability plot of a value head's win prediction (`training.fit.win_prediction`): the
    observed win share against the mean prediction in each bin (marker area: records), the diagonal,
    and the Brier scores of the prediction and of the nations-only baseline."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = win_prediction["reliability"]
    n = sum(r["records"] for r in rows)
    fig, ax = plt.subplots(figsize=(5.2, 5), dpi=110)
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--", linewidth=1, label="perfect calibration")
    ax.plot([r["predicted"] for r in rows], [r["observed"] for r in rows], color="C0")
    ax.scatter([r["predicted"] for r in rows], [r["observed"] for r in rows],
               s=[max(8.0, 2000.0 * r["records"] / n) for r in rows], color="C0", alpha=0.7,
               label=f"value head: Brier {win_prediction['brier']:.3f}")
    ax.plot([], [], " ", label=f"nations only: Brier {win_prediction['brier_nation_baseline']:.3f}")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted win probability (bin mean)")
    ax.set_ylabel("observed win share")
    ax.set_title(title or f"win prediction, {n:,} held-out decisions", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    return save_figure(fig, png_path)


def main(argv=None) -> int:
    """python -m training.plots reliability FIT_JSON PNG [--key win_prediction_before]"""
    import argparse
    import json

    ap = argparse.ArgumentParser(prog="python -m training.plots",
                                 description="Draw the reliability plot of a fit's value head (fit.json).")
    ap.add_argument("what", choices=["reliability"])
    ap.add_argument("fit_json", help="a fit's fit.json (training.fit)")
    ap.add_argument("png")
    ap.add_argument("--key", default="win_prediction", choices=["win_prediction", "win_prediction_before"],
                    help="the fitted network's (default) or the starting network's value head")
    ap.add_argument("--title", default="")
    args = ap.parse_args(argv)
    try:
        wp = json.loads(Path(args.fit_json).read_text())[args.key]
    except (OSError, ValueError, KeyError) as e:
        raise SystemExit(f"error: {args.fit_json}: no {args.key} ({e})")
    print(plot_reliability(wp, args.png, args.title))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
