"""`simulate` under faults: a worker that dies, a full disk, an output path that cannot be written, Ray that
cannot start, Ctrl-C. Each ends with a plain message and its documented exit status, and keeps every game that
finished."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from boardrules.tools import sim_exit, sim_outputs, simulate
from boardrules.tools.cli import main
from boardrules.tools.simulate import Setup

RELAY = str(Path(__file__).resolve().parent / "packs" / "relay")
SETUP = Setup(RELAY, None, (("prize", 4),), 2)
real_play_one = simulate.play_one


def test_a_game_that_kills_its_worker_is_lost_and_every_other_game_is_kept(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def deadly(setup: Setup, seed: int, rules: object = None) -> simulate.Outcome:
        if seed == 3:
            os._exit(1)  # the worker dies as if killed: no exception, no result
        return real_play_one(setup, seed, rules)  # type: ignore[arg-type]

    monkeypatch.setattr(simulate, "play_one", deadly)  # forked workers inherit it
    report = simulate.simulate(SETUP, games=8, seed=1, workers=2)
    assert report["games"] == 8 and report["finished"] == 7
    [lost] = report["errors"]
    assert lost["seed"] == 3 and lost["kind"] == "lost"
    assert lost["message"].startswith("its worker process died, twice")
    code = main(["simulate", RELAY, "--set", "prize=4", "--games", "8", "--workers", "2", "--no-save"])
    out = capsys.readouterr().out
    assert code == 1 and "games 8, finished 7, errors 1" in out
    assert "error E117: seed 3: the game was lost: its worker process died, twice" in out
    monkeypatch.undo()
    clean = simulate.simulate(SETUP, games=8, seed=1, workers=1)
    assert clean["finished"] == 8 and clean["games"] == 8  # seed 3 plays too when nothing dies


def test_a_worker_killed_once_has_its_games_played_again(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    marker = tmp_path / "killed-once"

    def unlucky(setup: Setup, seed: int, rules: object = None) -> simulate.Outcome:
        if seed == 5 and not marker.exists():
            marker.touch()
            os._exit(1)
        return real_play_one(setup, seed, rules)  # type: ignore[arg-type]

    monkeypatch.setattr(simulate, "play_one", unlucky)
    report = simulate.simulate(SETUP, games=8, seed=1, workers=2)
    assert marker.exists()
    monkeypatch.undo()
    expected = simulate.simulate(SETUP, games=8, seed=1, workers=1)
    assert simulate.comparable(report) == simulate.comparable(expected)
    assert report["finished"] == 8 and report["errors"] == []


def _no_space(fd: int, data: bytes) -> None:
    raise OSError(errno.ENOSPC, "No space left on device")


def test_a_full_disk_loses_failure_logs_never_results(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sim_outputs, "_write", _no_space)
    folder = tmp_path / "failures"
    setup = Setup(RELAY, None, (("prize", 4),), 2, max_steps=3, failures=str(folder))  # every game fails
    report = simulate.simulate(setup, games=4, seed=1, workers=1)
    assert report["games"] == 4 and len(report["errors"]) == 4
    for e in report["errors"]:
        assert e["kind"] == "step_limit" and e["file"] is None
        assert e["save_error"] == f"E116: the log could not be saved in {folder}: No space left on device"
    assert list(folder.iterdir()) == []  # no 0-byte log, no temporary file
    assert "(E116: the log could not be saved" in simulate.render(report)


def test_an_output_path_that_cannot_be_written_is_refused_before_the_run(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("no game may be played")

    monkeypatch.setattr(sim_exit, "simulate", never)
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for argv in (["--json", str(a_file / "report.json")], ["--json", str(tmp_path)],
                 ["--json", str(tmp_path / "missing" / "r.json")], ["--failures", str(a_file / "logs")]):
        code = main(["simulate", RELAY, "--set", "prize=4", *argv])
        out = capsys.readouterr().out
        assert code == 2, out
        assert "error E116: " in out and argv[1] in out, out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]  # nothing left behind


def test_a_report_that_cannot_be_written_after_the_run_is_printed(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.setattr(sim_outputs, "_write", _no_space)
    out_file = tmp_path / "r.json"
    code = main(["simulate", RELAY, "--set", "prize=4", "--games", "3", "--json", str(out_file), "--no-save"])
    out = capsys.readouterr().out
    assert code == 4
    assert "games 3, finished 3, errors 0" in out
    assert f"error E116: --json {out_file}: the report could not be written: No space left on device" in out
    assert not out_file.exists() and list(tmp_path.iterdir()) == []


def test_ray_that_cannot_start_is_a_plain_error(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    ray = pytest.importorskip("ray")

    def refuse(*args: object, **kwargs: object) -> None:
        raise ConnectionError("could not connect to 10.0.0.9:6379")

    monkeypatch.setattr(ray, "init", refuse)
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    code = main(["simulate", RELAY, "--set", "prize=4", "--backend", "ray", "--address", "10.0.0.9:6379"])
    out = capsys.readouterr().out
    assert code == 4
    assert "error E119: Ray could not start at 10.0.0.9:6379: ConnectionError: could not connect" in out


def test_an_interrupt_in_one_process_reports_the_games_before_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    def interrupted(setup: Setup, seed: int, rules: object = None, step: object = None) -> simulate.Outcome:
        if seed == 4:
            raise KeyboardInterrupt
        return real_play_one(setup, seed, rules, step)  # type: ignore[arg-type]

    monkeypatch.setattr(simulate, "play_one", interrupted)
    out_file = tmp_path / "r.json"
    code = main(["simulate", RELAY, "--set", "prize=4", "--games", "10", "--no-save", "--json", str(out_file)])
    out = capsys.readouterr().out
    assert code == 130
    assert "games 3, finished 3, errors 0" in out
    assert "error E118: interrupted: 3 of 10 games finished and are reported" in out
    report = json.loads(out_file.read_text())
    assert report["games"] == 3 and report["interrupted"] == {"requested": 10, "played": 3}


def test_a_ray_address_where_nothing_answers_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    # Ray itself would retry such an address for many minutes.
    code = main(["simulate", RELAY, "--set", "prize=4", "--backend", "ray", "--address", "127.0.0.1:1"])
    out = capsys.readouterr().out
    assert code == 4
    assert "error E119: Ray could not start at 127.0.0.1:1: nothing answers there (Connection refused)" in out


def _group(pgid: int) -> list[int]:
    """The processes still alive in a process group."""
    alive = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                alive.append(int(entry))
    return alive


@pytest.mark.parametrize("attempt", [1, 2])
def test_ctrl_c_stops_the_workers_reports_what_finished_and_exits_130(tmp_path: Path, attempt: int) -> None:
    out_file = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "boardrules", "simulate", RELAY, "--set", "prize=4", "--games", "1000000",
         "--workers", "2", "--no-save", "--json", str(out_file)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while len(_group(proc.pid)) < 3 and time.monotonic() < deadline:  # the main process and two workers
            time.sleep(0.2)
        assert len(_group(proc.pid)) >= 3, "the workers never started"
        time.sleep(2)
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, out + err
    assert "Traceback" not in out + err and "E900" not in out + err
    report = json.loads(out_file.read_text())
    played = report["interrupted"]["played"]
    assert report["interrupted"]["requested"] == 1_000_000 and report["games"] == played < 1_000_000
    assert f"error E118: interrupted: {played} of 1000000 games finished and are reported" in out
    time.sleep(0.5)
    assert _group(proc.pid) == [], "workers left behind"


class _Finalized:
    """A reference cycle whose finalizer tells which process ran it."""

    def __init__(self, log: Path) -> None:
        self.me, self.log = self, log

    def __del__(self) -> None:
        with self.log.open("a") as f:
            f.write(f"{os.getpid()}\n")


def _collect_here() -> int:
    import gc
    gc.collect()
    return os.getpid()


def test_the_parents_garbage_is_collected_before_the_workers_are_forked(tmp_path: Path) -> None:
    """A cycle left by the parent (Ray's client left some) must not be finalized in a forked worker, where the
    native threads its finalizer needs are gone: after a Ray run the process backend's workers died of SIGSEGV."""
    import gc

    from boardrules.tools.fork_pool import fork_pool
    log = tmp_path / "finalized"
    was = gc.isenabled()
    gc.disable()
    try:
        _Finalized(log)
        with fork_pool(2) as pool:
            children = {pool.submit(_collect_here).result() for _ in range(4)}
    finally:
        if was:
            gc.enable()
    assert os.getpid() not in children
    assert log.read_text().split() == [str(os.getpid())]
