"""The saved game a file holds: a `play` save as it is, or the save a `simulate` failure log carries, so
`play --load` and `view` open both, and both go through `Game.deserialize`, which checks every save. The file
is read and the failure log checked by `boardrules.saves` (bounded size, strict JSON, its schema)."""

from __future__ import annotations

import json
from pathlib import Path

from .. import saves
from ..diagnostics import BoardrulesError


def save_text(path: str | Path) -> str:
    """The text to give `Game.deserialize`; what cannot be read is E512, as for any save."""
    text = saves.read_file(path)
    try:
        head = json.loads(text)
    except ValueError:
        return text  # Game.deserialize says what is wrong with it
    if isinstance(head, dict) and head.get("format") == saves.FAILURE_FORMAT:
        data = saves.parse(text, "failure")
        save = data.get("save")
        if not isinstance(save, str):
            raise BoardrulesError("E512", f"{path} is a failure log without a saved game", None,
                                  "logs written before boardrules kept the game in them replay with "
                                  "boardrules.tools.simulate.replay_failure")
        return save
    return text


__all__ = ["save_text"]
