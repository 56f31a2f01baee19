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
    # the usual lines, read without building a parser (cli._plain_check), and their near misses
    ["check", "a", "b", "--no-cache", "--strict"], ["check", "--format=json", "a", "--format", "sarif"],
    ["check", "a", "--strict", "b"], ["check", "--strict", "a", "--no-cache", "b"], ["check", ""],
    ["check", "--format"], ["check", "--format", "--strict"], ["check", "--format=", "a"], ["check", "-", "a"],
    ["check", "a", "-1"], ["check", "--format", "text", "--format", "json", "x y"], ["check", "--no-cache=1"],
    ["check", "--strict", "--strict", "a"], ["check", "a", "--format", "json", "b"], ["check", "-h", "a"],
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


def test_the_usual_lines_need_no_parser() -> None:
    for words in (["check"], ["check", "rules/village", "rules/lisboa", "--no-cache"],
                  ["check", "--format", "json", "--strict", "a"], ["check", "--format=sarif", "a", "b"]):
        assert cli._plain_check(words) is not None
    for words in (["check", "--form", "json"], ["check", "a", "--strict", "b"], ["check", "--set", "a=1"],
                  ["check", "--", "a"], ["check", "--help"]):
        assert cli._plain_check(words) is None


def test_the_one_command_parser_takes_the_ordinary_lines() -> None:
    for words in (["check"], ["check", "rules", "--no-cache"], ["check", "--format", "json", "--strict"]):
        assert cli._check_args(words) is not None
    assert cli._check_args(["check", "--bogus"]) is None and cli._check_args(["test"]) is None
