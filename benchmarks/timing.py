"""Interleaved repeats, medians and spread: how every benchmark here measures.

On a busy machine one block of runs after another measures the load as much as the code. Each repeat runs every
contender once, in an order that rotates from repeat to repeat, so the contenders share the noise; a ratio is
taken within each repeat (neighbouring measurements) and the median of those ratios is reported, with its range.
"""

from __future__ import annotations

import gc
import statistics
from collections.abc import Callable


def interleaved(contenders: dict[str, Callable[[], float]], repeats: int) -> dict[str, list[float]]:
    """Run each contender once per repeat, rotating the order; each returns the figure it measured."""
    names = list(contenders)
    out: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        for name in names[r % len(names):] + names[: r % len(names)]:
            gc.collect()
            out[name].append(contenders[name]())
    return out


def spread(values: list[float]) -> tuple[float, float, float, float, float]:
    """(median, min, max, first quartile, third quartile)."""
    ordered = sorted(values)
    if len(ordered) >= 4:
        q1, _, q3 = statistics.quantiles(ordered, n=4)
    else:
        q1, q3 = ordered[0], ordered[-1]
    return statistics.median(ordered), ordered[0], ordered[-1], q1, q3


def ratios(top: list[float], bottom: list[float]) -> list[float]:
    """Per-repeat ratios of two contenders measured in the same repeats."""
    return [a / b for a, b in zip(top, bottom, strict=True)]


def show(values: list[float], unit: str = "", digits: int = 1) -> str:
    """`median unit (min-max, IQR q1-q3)`."""
    med, low, high, q1, q3 = spread(values)
    return (f"{med:.{digits}f}{unit} (min-max {low:.{digits}f}-{high:.{digits}f}, "
            f"IQR {q1:.{digits}f}-{q3:.{digits}f})")


def show_ratio(values: list[float]) -> str:
    med, low, high, _, _ = spread(values)
    return f"{med:.2f}x (min-max {low:.2f}-{high:.2f})"
