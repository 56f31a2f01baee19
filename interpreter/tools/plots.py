"""The balance plots of the HTML report, drawn by matplotlib as SVG text to put inline (nothing fetched when the
page is read). Each function takes the rows or metrics of a simulation and returns one `<svg>` element.

matplotlib comes with `pip install 'boardrules[report]'`; without it, `require()` raises E760.
"""

from __future__ import annotations

import io
from typing import Any

from ..diagnostics import BoardrulesError

BLUE, GREY = "#2a6fb0", "#8a8f98"


def require() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise BoardrulesError("E760", "the report's plots need matplotlib", None,
                              "pip install 'boardrules[report]'") from None
    matplotlib.use("svg", force=False)
    return matplotlib


def _figure(width: float, height: float) -> tuple[Any, Any]:
    require()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=72)
    ax = fig.add_subplot()
    ax.spines[["top", "right"]].set_visible(False)
    return fig, ax


def _svg(fig: Any, title: str) -> str:
    import matplotlib

    buf = io.StringIO()
    # a fixed salt and no date keep the page the same for the same games
    with matplotlib.rc_context({"svg.hashsalt": "boardrules", "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": "boardrules"})
    text = buf.getvalue()
    start = text.index("<svg")
    svg = text[start:]
    label = title.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")
    return svg.replace("<svg", f'<svg class="plot" role="img" aria-label="{label}"', 1)


def win_rates(balance: dict[str, Any]) -> str:
    """Each seat's win rate with its 95 % interval, against the fair share."""
    seats = list(balance["seats"])
    fig, ax = _figure(5, 2.8)
    rates = [balance["seats"][s]["rate"] for s in seats]
    low = [r - balance["seats"][s]["low"] for s, r in zip(seats, rates, strict=True)]
    high = [balance["seats"][s]["high"] - r for s, r in zip(seats, rates, strict=True)]
    ax.bar(seats, rates, color=BLUE, yerr=[low, high], capsize=6, ecolor="#222")
    if "first_player" in balance:
        ax.axhline(balance["first_player"]["fair"], color=GREY, linestyle="--", label="mean of the seats")
        ax.legend(frameon=False, fontsize=9)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95 % interval)")
    ax.set_title("Win rate per seat")
    return _svg(fig, "win rate per seat with 95 % intervals")


def lengths(rows: list[dict[str, Any]]) -> str:
    """How many moves the finished games took."""
    moves = [r["moves"] for r in rows if r["finished"]]
    fig, ax = _figure(5, 2.8)
    if moves:
        bins = min(30, max(1, max(moves) - min(moves) + 1))
        ax.hist(moves, bins=bins, color=BLUE, edgecolor="white")
    ax.set_xlabel("moves in a game")
    ax.set_ylabel("games")
    ax.set_title("Game length")
    return _svg(fig, "histogram of game lengths in moves")


def scores(rows: list[dict[str, Any]]) -> str:
    """The spread of each seat's final score (the first ranking key)."""
    finished = [r for r in rows if r["finished"]]
    seats = list(rows[0]["scores"]) if rows else []
    data = [[r["scores"][s] for r in finished if isinstance(r["scores"][s], int | float)] for s in seats]
    fig, ax = _figure(5, 2.8)
    if any(data):
        ax.boxplot([d or [0] for d in data], tick_labels=seats, patch_artist=True,
                   boxprops={"facecolor": "#dbe8f6", "edgecolor": BLUE}, medianprops={"color": BLUE})
    ax.set_ylabel("final score")
    ax.set_title("Score spread per seat")
    return _svg(fig, "box plot of final scores per seat")


def rules(balance: dict[str, Any]) -> str:
    """Each rule's firing rate (share of games it ran in) with its 95 % interval."""
    names = list(balance["rules"])
    fig, ax = _figure(6.5, max(2.0, 0.26 * len(names) + 0.8))
    rates = [balance["rules"][n]["rate"] for n in names]
    err = [[r - balance["rules"][n]["low"] for n, r in zip(names, rates, strict=True)],
           [balance["rules"][n]["high"] - r for n, r in zip(names, rates, strict=True)]]
    ax.barh(names, rates, color=BLUE, xerr=err, capsize=3, ecolor="#222")
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlabel("share of games in which the rule ran (95 % interval)")
    ax.set_title("Rule firing")
    return _svg(fig, "firing rate of each rule with 95 % intervals")


__all__ = ["lengths", "require", "rules", "scores", "win_rates"]
