"""The saved game a file holds: a `play` save as it is, or the save a `simulate` failure log carries (so
`play --load` and `view` open both, and both go through `Game.deserialize`, which checks every save)."""

from __future__ import annotations

import json
from pathlib import Path

from ..diagnostics import BoardrulesError

FAILURE_FORMAT = "boardrules-failure/1"  # simulate.py writes it


def save_text(path: str | Path) -> str:
    """The text to give `Game.deserialize`; a file that cannot be read is E512 (as an unreadable save is)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BoardrulesError("E512", f"cannot read {path}: {exc}") from None
    try:
        data = json.loads(text)
    except ValueError:
        return text  # Game.deserialize says what is wrong with it
    if isinstance(data, dict) and data.get("format") == FAILURE_FORMAT:
        save = data.get("save")
        if not isinstance(save, str):
            raise BoardrulesError("E512", f"{path} is a failure log without a saved game", None,
                                  "logs written before boardrules saved the game in them replay with "
                                  "boardrules.tools.simulate.replay_failure")
        return save
    return text


__all__ = ["FAILURE_FORMAT", "save_text"]
