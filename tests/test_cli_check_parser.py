"""`check` reads its arguments with a parser of that command alone (cli._check_args): what it accepts it reads as
the whole parser does, its help is the same, and anything else goes to the whole parser, which words the error."""

from __future__ import annotations

import contextlib
import io

import pytest

from boardrules.tools import cli

LINES = [
    ["check"], ["check", "rules"], ["check", "--no-cache", "--format", "json", "a", "b"], ["check", "--strict"],
    ["check", "--explain", "E301"], ["check", "--changed", "x.yaml"], ["check", "--set", "a=1", "--set", "b=2"],
    ["check", "--options", "o.yaml", "--format=sarif"], ["check", "--", "--odd"], ["check", "--form", "json"],
    ["check", "--format", "xml"], ["check", "--bogus"], ["check", "--set"], ["check", "-h"], ["check", "--help"],
    ["check", "--no-cache", "--no-cache"], ["check", "--strict=1"],
]


def outcome(parse: object, words: list[str]) -> tuple[object, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            result: object = vars(parse(words))  # type: ignore[operator]
        except SystemExit as exc:
            result = ("exit", exc.code)
    return result, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("words", LINES, ids=" ".join)
def test_check_reads_its_line_as_the_whole_parser_does(words: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    whole = outcome(lambda w: cli.build_parser().parse_args(w), words)

    def alone(w: list[str]) -> object:
        args = cli._check_args(w)
        return args if args is not None else cli.build_parser().parse_args(w)

    assert outcome(alone, words) == whole


def test_the_one_command_parser_takes_the_ordinary_lines() -> None:
    for words in (["check"], ["check", "rules", "--no-cache"], ["check", "--format", "json", "--strict"]):
        assert cli._check_args(words) is not None
    assert cli._check_args(["check", "--bogus"]) is None and cli._check_args(["test"]) is None
