"""`boardrules play`: a whole game in the terminal. Every decision is a numbered menu that says who decides
and which rule asks; what each step changed is printed with the rule that changed it, so the whole state is
shown only once (and on `v`). Setup's steps are folded into one line. Pieces read as their kind and name
(`card 4`, not `card_4`). Seats given to bots and chance play by themselves, from one generator seeded by --seed.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..diagnostics import BoardrulesError, Span, source_line
from ..engine.values import plain
from ..game import CHANCE, Game, Option, Pending
from .bots import play_next
from .game_files import save_text

HELP = "a number chooses; u undoes your last decision; v shows the whole state; s FILE saves; q quits"
_FLOW_VARS = {"round": "round", "phase": "phase", "turn_player": "turn"}


class Session:
    """One game at the terminal; `read` gives a line of input (None at the end of input), `write` prints."""

    def __init__(self, game: Game, bots: dict[str, str], rng: random.Random,
                 read: Callable[[str], str | None], write: Callable[[str], None]) -> None:
        self.game, self.bots, self.rng, self.read, self.write = game, bots, rng, read, write
        self.shown = False  # the whole state is shown at the first menu; after that, what each step changed
        self.setup: list[str] = []  # setup's decisions so far, printed as one line when setup ends

    def run(self) -> int:
        game = self.game
        self.write(f"{', '.join(game.rules.modules)}: {len(game.players)} players, seed {game.seed}; "
                   f"bots: {', '.join(f'{p}={b}' for p, b in sorted(self.bots.items())) or 'none'}. {HELP}")
        while not game.is_terminal():
            said: list[Callable[[], None]] = []
            try:  # chance and the bots' seats (the random bot's through Game.play_random)
                played = play_next(game, self.bots, self.rng, None, functools.partial(self._seen, said))
            except BoardrulesError as err:
                self._refused(err)
                continue
            if played is not None:
                said[-1]()
                continue
            pending = game.pending()
            if pending is None:
                self.write("the game waits for nothing but is not over")
                return 1
            outcome = self._ask(pending)
            if outcome is not None:
                return outcome
        self.write("game over")
        for row in game.ranking():
            self.write(f"  {row['rank']}. {row['player']}  " + "  ".join(str(k) for k in row["keys"]))
        self.write("returns: " + ", ".join(f"{p} {r:+.2f}" for p, r in zip(game.players, game.returns(),
                                                                         strict=True)))
        return 0

    def _ask(self, pending: Pending) -> int | None:
        """Show the menu and act on one line of input; a number to return ends the session."""
        if not self.shown:
            self._show_state()
            self.shown = True
        rule = f"  [rule {_short(pending.rule)}: {pending.source}]" if pending.rule else ""
        self.write(f"{pending.player} decides: {pending.prompt}{rule}")
        for n, option in enumerate(pending.options, 1):
            self.write(f"  {n}. {_readable(self.game, option.label)}")
        line = self.read(f"{pending.player}> ")
        if line is None or line.strip() == "q":
            self.write("quit")
            return 0
        word, _, rest = line.strip().partition(" ")
        # ASCII digits only, and few of them: int() refuses "²" and 5,000 digits with an exception.
        if word.isascii() and word.isdigit() and len(word) <= 9 and 1 <= int(word) <= len(pending.options):
            self._step(pending, pending.options[int(word) - 1].id)
        elif word == "u":
            self._undo()
        elif word == "v":
            self._show_state()
        elif word == "s" and rest.strip():
            try:
                Path(rest.strip()).write_text(self.game.serialize() + "\n", encoding="utf-8")
            except OSError as exc:
                self.write(f"cannot save to {rest.strip()}: {exc.strerror or type(exc).__name__}")
            else:
                self.write(f"saved to {rest.strip()}")
        else:
            self.write(f"? {HELP} (1-{len(pending.options)})")
        return None

    def _step(self, pending: Pending, option_id: int) -> None:
        """Apply a person's answer and show what it changed."""
        said = self._said(pending, option_id)
        try:
            self.game.apply(option_id)
        except BoardrulesError as err:
            self._refused(err)
            return
        said()

    def _seen(self, said: list[Callable[[], None]], pending: Pending, option: Option) -> None:
        said.append(self._said(pending, option.id))

    def _refused(self, err: BoardrulesError) -> None:
        d = err.diagnostic
        self.write(f"refused: {d.code}: {d.message}" + (f" [{_short(str(d.span))}]" if d.span else ""))

    def _said(self, pending: Pending, option_id: int) -> Callable[[], None]:
        """Before the answer is applied (the decision is still pending), what prints it and its changes after."""
        game = self.game
        journal = game.state.journal
        last = journal[-1] if journal else None
        option = pending.option(option_id)  # proves this option alone, not the list
        label = option.label
        who = pending.player if pending.player not in self.bots else f"{pending.player} ({self.bots[pending.player]})"
        if pending.player == CHANCE:
            who = f"chance ({pending.prompt})"
        where = _action_rule(game, pending, option.value) or (_short(pending.rule) if pending.rule else None)
        in_setup = not game.log  # setup is logged when it ends

        def show() -> None:
            changes = _changes(game, journal[_after(journal, last):])
            if in_setup:
                self.setup.append(f"{pending.prompt}: {label}" if pending.player == CHANCE else f"{who}: {label}")
                if game.log:  # setup has ended: one line for all of it
                    self.write(f"setup ({'; '.join(self.setup)}): " + _fold(changes))
                    self.setup = []
                return
            self.write(f"{who}: {_readable(game, label)}" + (f"  [{where}]" if where else ""))
            for text in changes:
                self.write("    " + text)

        return show

    def _undo(self) -> None:
        game, humans = self.game, [p for p in self.game.players if p not in self.bots]
        undone = False
        while game.undo():
            undone = True
            pending = game.pending()
            if pending is not None and pending.player in humans:
                break
        self.write("undone" if undone else "nothing to undo")
        self.shown = False  # after going back, the whole state again

    def _show_state(self) -> None:
        st = self.game.state
        flow = ", ".join(f"{name} {_flow_value(self.game, var)}" for var, name in _FLOW_VARS.items()
                         if st.vars.get(var) is not None)
        shared = [f"{k} {_value(v)}" for k, v in st.counters.items() if "." not in k]
        self.write("-- " + "; ".join(x for x in [flow, ", ".join(shared)] if x))
        for p in self.game.players:
            mine = [f"{k.partition('.')[2]} {_value(v)}" for k, v in st.counters.items() if k.startswith(p + ".")]
            zones = [f"{z.partition('.')[2]} {len(rec.contents)}" for z, rec in st.zones.items()
                     if z.startswith(p + ".")]
            self.write(f"   {p}: " + ", ".join(mine + zones))


def _after(journal: list[Any], last: Any) -> int:
    """The index of the first journal entry after `last` (the journal may have been trimmed at its start)."""
    if last is None:
        return 0
    for i in range(len(journal) - 1, -1, -1):
        if journal[i] is last:
            return i + 1
    return 0


def _changes(game: Game, entries: list[Any]) -> list[str]:
    """One line per thing a step changed (counters, pieces, markers, the flow), each with its rule."""
    st = game.state
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for entry in entries:
        op, key, cause = entry[0], entry[1] if len(entry) > 2 else None, entry[-1]
        if (op, str(key)) in seen:
            continue
        seen.add((op, str(key)))
        if op == "counter" and key in st.counters:
            old = entry[2]
            text = f"{key} {_value(old) if isinstance(old, int) else 0} -> {_value(st.counters[key])}"
        elif op == "move" and key in st.pieces and entry[2] != st.pieces[key].zone:
            text = f"{_piece(st, key)} {entry[2]} -> {st.pieces[key].zone}"
        elif op == "create" and key in st.pieces:
            text = f"{_piece(st, key)} created in {st.pieces[key].zone}"
        elif op == "remove":
            text = f"{key} removed"
        elif op == "marker" and key in st.markers:
            text = f"marker {key} {entry[2]} -> {st.markers[key].pos}"
        elif op == "var" and key in _FLOW_VARS:
            out.append(f"{_FLOW_VARS[key]} -> {_flow_value(game, key)}".ljust(34) + "  [flow]")
            continue
        else:
            continue
        out.append(text.ljust(34) + (f"  [{_short(str(cause))}: {_text(cause)}]" if cause else ""))
    return out


def _flow_value(game: Game, var: str) -> str:
    value = game.state.vars.get(var)
    flow = game.rules.flow
    if var == "phase" and type(value) is int and flow is not None and 0 <= value < len(flow.phases):
        return flow.phases[value].name
    return _value(value)


def _piece(st: Any, pid: str) -> str:
    """A piece by kind and name: `card_4` of kind card reads `card 4`; an id not made from its kind is kept."""
    kind = st.pieces[pid].kind
    name = pid[len(kind) + 1:] if pid.startswith(kind + "_") else pid
    return f"{kind.replace('_', ' ')} {name}"


def _readable(game: Game, label: str) -> str:
    """An option's label with each piece id in it read as kind and name."""
    pieces = game.state.pieces
    return re.sub(r"\$?\b[A-Za-z_]\w*\b", lambda m: _piece(game.state, m.group().lstrip("$"))
                  if m.group().lstrip("$") in pieces else m.group(), label)


def _fold(changes: list[str]) -> str:
    """Setup's changes in one line: how many of each, the first few named."""
    if not changes:
        return "nothing changed"
    heads = [c.split("  [", 1)[0].strip() for c in changes]
    shown = "; ".join(heads[:4])
    return f"{len(changes)} change(s): {shown}" + ("; ..." if len(heads) > 4 else "")


def _value(v: Any) -> str:
    return str(plain(v))


def _short(where: str | None) -> str:
    return Path(where).name if where and "/" in where else str(where)


def _text(span: Span) -> str:
    line = source_line(span.file, span.line)
    return line.strip() if line else ""


def _action_rule(game: Game, pending: Pending, value: Any) -> str | None:
    """For a move (its option's value), the action's declaration: the rule the move runs."""
    if pending.kind != "move":
        return None
    action = game.rules.actions.get(str(value.get("action"))) if isinstance(value, dict) else None
    return f"actions.{action.name} {_short(str(action.span))}" if action else None


def start(pack: str, players: int, seed: int, options: dict[str, Any], modules: list[str] | None,
          load: str | None) -> Game:
    """A new game of the pack, or the saved game in `load` resumed."""
    if load:  # a save, or a simulate failure log (the save it carries)
        return Game.deserialize(save_text(load), pack)
    return Game.new(pack, players, seed, options, modules=modules, chance="step", undo_depth=None)


def read_line(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None
