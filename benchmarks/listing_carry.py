"""How much of a listing verdicts carried from state to state could save, with read sets that are exact and free.

Issue 20's listing goal (<= 3x one run of the chosen move) would need most candidate moves decided without a run.
The one way named for that is a verdict carried from an earlier state: a candidate's last proof (same player,
action and parameters) still holds when nothing that proof read has changed. This script measures the most that
can give. At every move decision of random 3-player games (`chance="auto"`, played with `Game.play_random`), a
copy of the game has the store's dicts (counters, zones, pieces, markers, vars, usage, groups, id counters)
replaced by ones that note every key read, and its deferred events by a property that notes reading them; each
candidate is proven on its own, from nothing (no kept runs), with the notes on. A proof's read set is every key
its runs read, or a whole dict when one was walked. Its verdict could have been carried when every place of the
last proof's read set holds the same value now. Noting reads costs far more than a real implementation would, so
only counts and the CPU of the proofs that could have been skipped are reported, never the cost of checking.

Each carried verdict is compared with the one the proof found: a wrong one would mean a read the notes missed.

    python benchmarks/listing_carry.py [--games 3] [--packs village lisboa]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

from boardrules.game import Game
from boardrules.language.pack import load_rules

ROOT = Path(__file__).resolve().parent.parent
PACKS = {"village": ROOT / "rules" / "village", "lisboa": ROOT / "rules" / "lisboa"}
ALL = "<all>"  # a whole dict was walked
NAMES = ("counters", "zones", "pieces", "markers", "vars", "usage", "groups", "id_counters")


class Noting(dict):  # type: ignore[type-arg]
    """A dict of the store that notes each key read (and ALL when walked), while `log` is set."""

    __slots__ = ("log", "name")

    def _note(self, key: Any) -> None:
        if self.log is not None:
            self.log.add((self.name, key))

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return dict.__getitem__(self, key)

    def get(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return dict.__contains__(self, key)

    def items(self) -> Any:
        self._note(ALL)
        return dict.items(self)

    def keys(self) -> Any:
        self._note(ALL)
        return dict.keys(self)

    def values(self) -> Any:
        self._note(ALL)
        return dict.values(self)

    def __iter__(self) -> Any:
        self._note(ALL)
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._note(ALL)
        return dict.__len__(self)


def noting(state: Any) -> list[Noting]:
    out = []
    for name in NAMES:
        d = Noting(getattr(state, name))
        d.name, d.log = name, None
        setattr(state, name, d)
        out.append(d)
    deferred = Noting()  # stands in for the deferred events: reading the list notes it
    deferred.name, deferred.log = "deferred", None
    state.__class__ = type("NotingState", (type(state),), {"deferred": _deferred(deferred)})
    out.append(deferred)
    return out


def _deferred(note: Noting) -> property:
    """`state.deferred`, noted as read whenever it is."""

    def read(state: Any) -> Any:
        note._note(ALL)
        return state.__dict__["deferred"]

    def write(state: Any, value: Any) -> None:
        state.__dict__["deferred"] = value

    return property(read, write)


def _value(name: str, v: Any) -> str:
    if name == "zones":
        return repr(v.contents)
    if name == "pieces":
        return repr((v.kind, v.zone, v.slot, sorted(v.props.items()), v.group, v.order))
    if name == "markers":
        return repr((v.pos, v.last))
    return repr(v)


def fingerprint(state: Any, reads: set[tuple[str, Any]]) -> tuple[Any, ...]:
    """The values of the places read, as they are in the state now."""
    out: list[Any] = []
    for name, key in sorted(reads, key=repr):
        if name == "deferred":
            out.append((name, ALL, repr(state.__dict__["deferred"])))
            continue
        d = getattr(state, name)
        if key == ALL:
            out.append((name, ALL, repr(sorted((repr(k), _value(name, v)) for k, v in dict.items(d)))))
        else:
            out.append((name, repr(key), _value(name, dict.__getitem__(d, key)) if dict.__contains__(d, key)
                        else "<missing>"))
    return tuple(out)


def _place(entry: Any) -> str:
    """A changed place, with the player in its key left out (`p2.goods[fish]` -> `goods[fish]`)."""
    name, key = entry[0], entry[1].strip("'")
    return f"{name} {key.split('.', 1)[1] if key[:1] == 'p' and '.' in key else key}"


def measure(rules: Any, games: int) -> dict[str, Any]:
    last: dict[Any, tuple[bool, set[tuple[str, Any]], tuple[Any, ...]]] = {}
    carried = earlier = wrong = proofs = 0
    saved = spent = 0.0
    walked: Counter[str] = Counter()
    changed: Counter[str] = Counter()  # places whose change stopped a carry
    sizes: list[int] = []
    for seed in range(1, games + 1):
        game = Game(rules, 3, seed, flow=True, chance="auto")
        game.setup()
        rng = random.Random(seed)
        while not game.is_terminal():
            pending = game.pending()
            assert pending is not None
            if pending.kind == "move":
                copy = game.clone()
                state = copy._m.state
                dicts = noting(state)
                copy._pending = None
                listed = copy.pending()
                assert listed is not None
                for i in range(len(listed._candidates)):
                    move = copy._pending_answers[i]
                    key = (listed.player, move.action, move.params)
                    copy._runs = None
                    copy._search = copy._new_search()
                    log: set[tuple[str, Any]] = set()
                    for d in dicts:
                        d.log = log
                    t0 = time.process_time()
                    verdict = copy._prove(listed, i)
                    took = time.process_time() - t0
                    for d in dicts:
                        d.log = None
                    proofs += 1
                    spent += took
                    before = last.get(key)
                    if before is not None:
                        earlier += 1
                        now = fingerprint(state, before[1])
                        if now == before[2]:
                            carried += 1
                            saved += took
                            wrong += before[0] != verdict
                        else:
                            changed.update(_place(a) for a, b in zip(now, before[2], strict=True) if a != b)
                    sizes.append(len(log))
                    walked.update(name for name, k in log if k == ALL)
                    last[key] = (verdict, log, fingerprint(state, log))
            game.play_random(rng)
    sizes.sort()
    return {"proofs": proofs, "earlier": earlier, "carried": carried, "wrong": wrong,
            "saved": saved / spent if spent else 0.0, "median reads": sizes[len(sizes) // 2] if sizes else 0,
            "walked": dict(walked), "changed": changed.most_common(6)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--packs", nargs="*", default=list(PACKS))
    args = parser.parse_args(argv)
    for name in args.packs:
        got = measure(load_rules(PACKS[name], None, None), args.games)
        print(f"{name}, 3 players, {args.games} random games: {got['proofs']} candidate proofs, "
              f"{got['earlier']} with an earlier proof of the same candidate")
        print(f"  verdicts that could be carried (nothing their proof read changed): {got['carried']} "
              f"({got['carried'] / max(got['earlier'], 1) * 100:.1f} % of those), wrong: {got['wrong']}")
        print(f"  share of the proofs' CPU they took (the most carrying could save): {got['saved'] * 100:.1f} %")
        print(f"  places read per proof (median): {got['median reads']}; proofs that walked a whole dict: "
              f"{got['walked'] or 'none'}")
        print("  places whose change most often stopped a carry: "
              + ", ".join(f"{place} ({n})" for place, n in got["changed"]))


if __name__ == "__main__":
    main()
