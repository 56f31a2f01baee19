"""What a running rule sees: the game, the acting player, and its local names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .machine import Machine
    from .values import Player


class Frame:
    """What a running rule sees: the game, the acting player, and its local names."""

    __slots__ = ("g", "me", "vars")

    def __init__(self, g: Machine, me: Player | None, variables: dict[str, Any] | None = None) -> None:
        self.g = g
        self.me = me
        self.vars = variables if variables is not None else {}
