"""`boardrules view`: a page to watch a game, stepped in headless Chromium; `play --load` opens failure logs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from boardrules.diagnostics import BoardrulesError
from boardrules.game import Game
from boardrules.tools.cli import main
from boardrules.tools.play import start
from boardrules.tools.simulate import Setup, replay_failure, simulate
from boardrules.tools.view import read, walk

ROOT = Path(__file__).resolve().parent.parent
RELAY = ROOT / "tests" / "packs" / "relay"
ARTEFACTS = ROOT / "tests" / "artefacts"
CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)


@pytest.fixture(scope="module")
def failure(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("view")
    pack = tmp / "relay"
    shutil.copytree(RELAY, pack)
    text = (pack / "relay.yaml").read_text()
    (pack / "relay.yaml").write_text(text.replace("invariants:\n", "invariants:\n  short: \"round_number <= 1\"\n", 1))
    report = simulate(Setup(str(pack), None, (("prize", 4),), 2, failures=str(tmp / "fails")), 1, 1)
    return Path(report["errors"][0]["file"])


def test_play_load_opens_a_simulate_failure_log(failure: Path) -> None:
    record = json.loads(failure.read_text())
    game = start(record["pack"], 2, 1, {}, None, str(failure))
    assert game.log == record["log"]
    assert game.state.to_json() == replay_failure(failure).state.to_json()  # where the invariant broke
    pending = game.pending()
    assert pending is not None and pending.player == "p2"  # and the game goes on from there


def test_walk_records_every_decision_and_the_state_after_it(failure: Path) -> None:
    w = walk(read(failure))
    record = json.loads(failure.read_text())
    moves = [e for e in record["log"] if e["kind"] == "move"]
    setup_answers = record["log"][0]["answers"]
    assert len(w.steps) == len(setup_answers) + len(moves) + 1
    chosen = [s["decision"]["chosen"] for s in w.steps[:-1]]
    assert chosen[len(setup_answers):] == [f"{m['action']}" + (
        "(" + ", ".join(f"{k}={v}" for k, v in m["params"].items()) + ")" if m["params"] else "") for m in moves]
    last = w.steps[-1]["decision"]
    waiting = start(record["pack"], 2, 1, {}, None, str(failure)).pending()
    assert waiting is not None and last["chosen"] is None and last["prompt"] == waiting.prompt
    assert w.failure is not None and w.failure["rule"] == "relay.short"
    # the state after k decisions, from the patches, equals a replay of the log to there
    state: dict = {}
    for i, step in enumerate(w.steps):
        state.update(step["patch"]["set"])
        for key in step["patch"]["del"]:
            state.pop(key)
        done = i - len(setup_answers)
        if done >= 0:
            game = Game.replay(read(failure).rules, 2, 1, record["log"][:1 + done])
            assert {k[2:]: v for k, v in state.items() if k.startswith("c:")} == game.state.counters


def test_view_refuses_what_is_not_a_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "report.json"
    bad.write_text(json.dumps({"games": 3}))
    assert main(["view", str(bad)]) == 1
    assert "error E761" in capsys.readouterr().out
    with pytest.raises(BoardrulesError) as err:
        read(tmp_path / "missing.json")
    assert err.value.diagnostic.code == "E761"


def test_view_of_a_play_save_mid_move(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = Game.new(RELAY, 2, 2, {"prize": 4}, chance="auto")
    for _ in range(6):
        pending = game.pending()
        assert pending is not None
        game.apply(pending.options[-1].id)
    save = tmp_path / "game.json"
    save.write_text(game.serialize())
    w = walk(read(save))
    assert len(w.steps) == 7 and w.failure is None
    assert main(["view", str(save)]) == 0 and (tmp_path / "game.html").is_file()


def _dom(url: str) -> str:
    assert CHROMIUM is not None
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Uncaught" not in proc.stderr
    return proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium)")
def test_stepping_the_slider_in_chromium_changes_the_shown_state(failure: Path, tmp_path: Path) -> None:
    page = tmp_path / "game.html"
    assert main(["view", str(failure), "-o", str(page)]) == 0
    html = page.read_text()
    assert not re.search(r"""(src|href)=["'](https?:)?//""", html)  # self-contained
    steps = len(walk(read(failure)).steps) - 1
    shown = {}
    for k in (0, 5, steps):
        dom = _dom(page.resolve().as_uri() + f"#step={k}")
        assert f'id="pos">decision {k} of {steps}<' in dom
        shown[k] = dict(re.findall(r'data-key="(c:[^"]+)">([^<]*)<', dom))
        assert shown[k]["c:p1.points"].isdigit()
        assert re.search(r'<li [^>]*class="here"', dom)
        if k == steps:
            assert "waiting for this decision" in dom and "the game failed (invariant)" in dom
    assert shown[0] != shown[5] != shown[steps]  # the slider moved the state
    assert shown[0]["c:p1.points"] == "0" and shown[5]["c:p1.points"] == "4"
    ARTEFACTS.mkdir(exist_ok=True)
    shot = ARTEFACTS / "view_relay_failure.png"
    taken = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--screenshot={shot}",
                            "--window-size=1280,1000", page.resolve().as_uri() + "#step=5"], capture_output=True,
                           text=True, timeout=120)
    assert taken.returncode == 0 and shot.stat().st_size > 10_000


def test_the_terminal_names_pieces_by_kind_and_name() -> None:
    from boardrules.tools.play import _piece, _readable

    game = Game.new(RELAY, 2, 1, {"prize": 4}, chance="auto")
    st = game.state
    assert _piece(st, "card_4") == "card 4"
    assert _readable(game, "$card_2, card_3, cards, buy(n=1)") == "card 2, card 3, cards, buy(n=1)"


def test_a_whole_shipped_game_replays_decision_by_decision(tmp_path: Path) -> None:
    import random

    game = Game.new(ROOT / "rules" / "lisboa", 3, 7)
    rng = random.Random(2)
    made = 0
    while not game.is_terminal():
        pending = game.pending()
        assert pending is not None
        game.apply(pending.sample(rng).id)
        made += 1
    save = tmp_path / "lisboa.json"
    save.write_text(game.serialize())
    w = walk(read(save))
    assert len(w.steps) - 1 == made and w.steps[-1]["decision"] is None
    assert w.ranking == game.ranking()
    final = {}
    for step in w.steps:
        final.update(step["patch"]["set"])
        for key in step["patch"]["del"]:
            final.pop(key)
    assert {k[2:]: v for k, v in final.items() if k.startswith("c:")} == game.state.counters
