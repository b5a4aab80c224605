"""The learning curve of a run, from its evaluations.csv alone: win rate with its 95% interval against
each evaluation opponent over training steps (left), and the learner's mean final score (right:
progress shows there before wins do against a strong opponent)."""
from __future__ import annotations

from pathlib import Path

from .evaluate import read_rows


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
    fig.tight_layout()
    out = Path(png_path)
    fig.savefig(out)
    plt.close(fig)
    return out
