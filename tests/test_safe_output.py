"""Diagnostics that cannot hurt: bounded source reading, cut lines, capped output, a closed pipe, long chains of
requires, loops of symbolic links."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from boardrules.diagnostics import Diagnostic, Span, excerpt, render_text, source_line

MODULE = "module: m{i}\ntitle: t\nplayers: {{min: 1, max: 2}}\n"


def run(*args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "boardrules", *args], capture_output=True, text=True,
                          timeout=timeout, check=False)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_never_opened_to_show_a_line(tmp_path: Path) -> None:
    fifo = tmp_path / "x.yaml"
    os.mkfifo(fifo)
    assert source_line(str(fifo), 1, {}) is None
    result = run("check", str(tmp_path), timeout=20)
    assert result.returncode == 1 and "E105" in result.stdout and "not a regular file" in result.stdout


def test_a_link_to_an_endless_device_is_not_read(tmp_path: Path) -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    (tmp_path / "x.yaml").symlink_to("/dev/zero")
    assert source_line(str(tmp_path / "x.yaml"), 1, {}) is None
    result = run("check", str(tmp_path), timeout=20)
    assert result.returncode == 1 and "E105" in result.stdout


def test_long_lines_are_cut_around_the_caret() -> None:
    line = "x" * 5000 + "HERE" + "y" * 5000
    shown, caret = excerpt(line, 5001)
    assert len(shown) <= 130 and shown[caret - 1:caret + 3] == "HERE"
    assert shown.startswith("...") and shown.endswith("...")
    assert excerpt("short", 3) == ("short", 3)


def test_repeated_output_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "m.yaml"
    path.write_text("a: [" + ", ".join(["1"] * 3000) + "]\n", encoding="utf-8")
    many = [Diagnostic("error", "E201", "bad", Span(str(path), 1, 5 + 3 * i)) for i in range(1000)]
    text = render_text(many, 200)
    assert text.count("error E201") == 200 and "800 more diagnostic(s) not shown" in text
    assert len(text) < 200 * 400


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text("module: m\ntitle: t\nplayers: {min: 1, max: 2}\nactions:\n  a:\n"
                                     "    title: A\n    do: [" + ", ".join(f'"zz{i} = 1"' for i in range(300)) + "]\n",
                                     encoding="utf-8")
    cmd = f"{sys.executable} -m boardrules check {tmp_path} | head -1"
    result = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=60, check=False)
    assert result.stdout.count("\n") == 1 and "E401" in result.stdout
    assert result.stderr == ""


def test_a_long_chain_of_requires_links_without_recursion(tmp_path: Path) -> None:
    n = 1100
    for i in range(n):
        req = f"requires: [m{i + 1}]\n" if i < n - 1 else ""
        (tmp_path / f"m{i:04d}.yaml").write_text(MODULE.format(i=i) + req, encoding="utf-8")
    result = run("check", str(tmp_path), timeout=60)
    assert result.returncode == 0, result.stdout[-500:] + result.stderr[-500:]
    assert f"checked {n} module file(s)" in result.stdout


def test_loops_of_symbolic_links_give_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text(MODULE.format(i=0), encoding="utf-8")
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "back").symlink_to(tmp_path)
    result = run("check", str(tmp_path))
    assert result.returncode == 1 and result.stderr == ""
    assert result.stdout.count("E105") == 2
    alone = run("check", str(tmp_path / "a.yaml"))
    assert alone.returncode == 1 and "a loop of symbolic links" in alone.stdout


def test_text_no_terminal_can_show_is_escaped_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "m.yaml").write_text('module: "m\\ud800"\ntitle: t\nplayers: {min: 1, max: 2}\n', encoding="utf-8")
    result = run("check", str(tmp_path))
    assert result.returncode == 1 and "E101" in result.stdout and "surrogate" in result.stdout


def test_a_file_of_dense_formulas_is_refused_in_good_time(tmp_path: Path) -> None:
    line = '      - "c = ' + "+".join(["1"] * 990) + '"\n'
    head = "module: m\ntitle: t\nplayers: {min: 1, max: 2}\ncounters:\n  c: {per: game}\nactions:\n  a:\n" \
           "    title: A\n    do:\n"
    (tmp_path / "m.yaml").write_text(head + "".join(line.replace("c = 1", f"c = {i}", 1) for i in range(120)),
                                     encoding="utf-8")
    result = run("check", str(tmp_path), timeout=30)
    assert result.returncode == 1 and "E104: too much formula text in one file" in result.stdout
