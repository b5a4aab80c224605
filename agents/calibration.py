"""Logistic (Platt) calibration of a value estimate into a win probability: the web app's win
probability (agents/arena/win_probability.py) and the fit's win prediction (training/fit.py)."""
from __future__ import annotations

import numpy as np


def platt(x: np.ndarray, y: np.ndarray, steps: int = 50) -> tuple[float, float]:
    """(a, b) of the logistic fit P(win) = sigmoid(a x + b) to win shares y (Newton, a small ridge)."""
    a = b = 0.0
    X = np.stack([x, np.ones_like(x)], 1)
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(a * x + b)))
        g = X.T @ (p - y) + 1e-6 * np.array([a, b])
        H = (X * (p * (1 - p))[:, None]).T @ X + 1e-6 * np.eye(2)
        da, db = np.linalg.solve(H, g)
        a, b = a - da, b - db
        if abs(da) + abs(db) < 1e-10:
            break
    return float(a), float(b)
