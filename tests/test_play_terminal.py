"""`boardrules play` driven through a pseudo-terminal, as a person would: read the screen, type keys."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELAY = str(ROOT / "tests" / "packs" / "relay")
LISBOA = str(ROOT / "rules" / "lisboa")


class Terminal:
    """The real command on a pseudo-terminal: `expect` reads the screen until a pattern, `send` types a line."""

    def __init__(self, *argv: str) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "boardrules", *argv], stdin=slave, stdout=slave,
                                     stderr=slave, close_fds=True, cwd=ROOT)
        os.close(slave)
        self.screen = ""
        self.pos = 0  # where the next expect starts reading
        self.seen = ""

    def expect(self, pattern: str, timeout: float = 30.0) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.screen[self.pos:])
            if found:
                self.seen = self.screen[self.pos:self.pos + found.end()]
                self.pos += found.end()
                return found
            left = deadline - time.monotonic()
            assert left > 0, f"timed out waiting for {pattern!r}; screen ends with:\n{self.screen[-2000:]}"
            ready, _, _ = select.select([self.master], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.master, 65536).decode("utf-8", "replace")
                except OSError:
                    chunk = ""
                if not chunk and self.proc.poll() is not None:
                    raise AssertionError(f"the command ended before {pattern!r}:\n{self.screen[-2000:]}")
                self.screen += chunk.replace("\r\n", "\n")

    def send(self, line: str) -> None:
        os.write(self.master, (line + "\n").encode())

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)


def play_to_the_end(term: Terminal, prompt: str = r"p1> ", limit: int = 400) -> str:
    """At a prompt, answer every menu with its first option until the game is over; the final screen."""
    for _ in range(limit):
        term.send("1")
        found = term.expect(rf"({prompt}|game over[\s\S]*returns: [^\n]*\n)", timeout=60)
        if found.group(0).startswith("game over"):
            return found.group(0)
    raise AssertionError("the game did not end")


def test_a_person_plays_a_whole_game_against_a_bot(tmp_path: Path) -> None:
    term = Terminal("play", RELAY, "--players", "2", "--seed", "3", "--set", "prize=4", "--bots", "p2=greedy")
    term.expect(r"p1 decides: p1 chooses a move")
    menu = term.expect(r"p1> ")
    assert "1. buy(n=1)" in term.seen and "4. give_up" in term.seen
    term.send("1")
    shown = term.expect(r"p1> ")
    assert "p1: buy(n=1)  [actions.buy relay.yaml:" in term.seen  # the move with its rule
    assert re.search(r"p1\.points 0 -> 1 +\[relay\.yaml:\d+:\d+: - me\.points \+= n\]", term.seen)  # each line's rule
    assert "p2 (greedy): " in term.seen
    assert menu and shown
    term.send("u")  # back to p1's first decision, before the bot's reply
    term.expect(r"undone")
    term.expect(r"p1> ")
    assert "market 6" in term.seen
    final = play_to_the_end(term)
    assert re.search(r"1\. p[12]  \d+  \d+", final) and "returns: p1" in final
    assert term.close() == 0


def test_a_game_is_saved_and_resumed_and_the_chance_rule_is_shown(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    term = Terminal("play", RELAY, "--players", "2", "--seed", "5", "--set", "prize=4")
    term.expect(r"p1> ")
    # setup folded into one line: its chance steps, then what it changed, pieces by kind and name
    assert re.search(r"\nsetup \((shuffle deck: [^;]*: \d+; ){2}shuffle deck: [^;]*: \d+\): 8 change\(s\): card 1 "
                     r"created in deck; card 2 created", term.seen)
    assert term.seen.count("-- round 1") == 1  # the whole state once, then what each step changed
    term.send("2")  # buy(n=2)
    term.expect(r"p2> ")
    term.send(f"s {save}")
    term.expect(r"saved to ")
    term.expect(r"p2> ")
    term.send("q")
    term.expect(r"quit")
    assert term.close() == 0
    again = Terminal("play", RELAY, "--load", str(save))
    again.expect(r"p2> ")
    assert "p1: tokens 0, points 2" in again.seen  # the saved game, at p2's decision
    again.send("x")
    again.expect(r"\? a number chooses")
    again.send("q")
    assert again.close() == 0


def test_a_whole_game_of_a_shipped_pack_in_the_terminal() -> None:
    term = Terminal("play", LISBOA, "--players", "2", "--seed", "2", "--bots", "p2=random")
    term.expect(r"p1> ", timeout=60)
    final = play_to_the_end(term, limit=600)
    assert "game over" in final and "returns: p1" in final
    assert term.close() == 0
