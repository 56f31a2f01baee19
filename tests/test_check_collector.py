"""`check` pauses the cyclic collector while it runs; only when the command ends right after (main() run as the
command itself) is what it left frozen instead of collected, so a caller in the same process keeps a normal heap."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from boardrules.tools import cli

PACK = Path(__file__).resolve().parent.parent / "rules" / "lisboa"


def test_a_check_called_in_process_leaves_the_collector_as_it_was(capsys: pytest.CaptureFixture[str]) -> None:
    frozen = gc.get_freeze_count()
    assert cli.main(["check", "--no-cache", str(PACK)]) == 0
    assert "checked 3 module file(s) in 1 pack(s): 0 error(s)" in capsys.readouterr().out
    assert gc.isenabled() and gc.get_freeze_count() == frozen


def test_the_collector_is_off_during_a_check_and_back_after_it(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(cli, "_checked", lambda args, paths: (seen.append(gc.isenabled()), ("", 0))[1])
    assert cli._check(None, []) == ("", 0)  # type: ignore[arg-type]
    assert seen == [False] and gc.isenabled()


def test_when_the_command_ends_after_the_check_what_it_left_is_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_ends_after", True)
    monkeypatch.setattr(cli, "_checked", lambda args, paths: ("", 0))
    before = gc.get_freeze_count()
    try:
        cli._check(None, [])  # type: ignore[arg-type]
        assert gc.get_freeze_count() > before and gc.isenabled()
    finally:
        gc.unfreeze()  # hand everything back to the collector: the test process goes on
