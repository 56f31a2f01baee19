"""What a running rule sees: the game's services, the acting player, and its local names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .services import Services
    from .values import Player


class Frame:
    """What a running rule sees: the game (only through `Services`), the acting player, and its local names."""

    __slots__ = ("g", "me", "vars")

    def __init__(self, g: Services, me: Player | None, variables: dict[str, Any] | None = None) -> None:
        self.g = g
        self.me = me
        self.vars = variables if variables is not None else {}
