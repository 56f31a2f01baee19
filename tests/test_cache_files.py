"""The per-user cache directory every boardrules cache shares: safe reads, atomic writes, bounded size."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from boardrules import cache_files


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "boardrules"


def test_an_entry_is_written_for_the_user_alone_and_read_back(home: Path) -> None:
    cache_files.write("t", "a", b"one")
    assert cache_files.read("t", "a") == b"one"
    assert stat.S_IMODE((home / "t").stat().st_mode) == 0o700
    assert [p.name for p in (home / "t").iterdir()] == ["a"]  # no temporary file left behind
    assert cache_files.read("t", "missing") is None


def test_what_others_could_write_is_never_read(home: Path) -> None:
    cache_files.write("t", "a", b"one")
    os.chmod(home / "t" / "a", 0o622)
    assert cache_files.read("t", "a") is None
    os.chmod(home / "t" / "a", 0o600)
    os.chmod(home / "t", 0o777)
    assert cache_files.read("t", "a") is None
    cache_files.write("t", "b", b"two")  # nor written into
    assert not (home / "t" / "b").exists()
    os.chmod(home / "t", 0o700)
    (home / "t" / "link").symlink_to(home / "t" / "a")
    assert cache_files.read("t", "link") is None


def test_a_cache_that_cannot_be_written_is_no_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    (tmp_path / "file").write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "file"))
    cache_files.write("t", "a", b"one")
    assert cache_files.read("t", "a") is None


def test_no_cache_turns_every_cache_off(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDRULES_NO_CACHE", "1")
    assert cache_files.cache_dir("t") is None
    cache_files.write("t", "a", b"one")
    assert cache_files.read("t", "a") is None and not home.exists()


def test_keep_drops_the_oldest_entries(home: Path) -> None:
    for i, name in enumerate("abcd"):
        cache_files.write("t", name, b"x")
        past = time.time() - 100 + i
        os.utime(home / "t" / name, (past, past))
    cache_files.write("t", "e", b"x", keep=3)
    assert sorted(p.name for p in (home / "t").iterdir()) == ["c", "d", "e"]


def test_the_fingerprint_changes_with_any_source_grammar_or_schema_file(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    package, grammar = tmp_path / "package", tmp_path / "grammar"
    (package / "sub").mkdir(parents=True)
    grammar.mkdir()
    files = [package / "a.py", package / "sub" / "b.py", grammar / "rules.lark", grammar / "module.schema.json"]
    for f in files:
        f.write_text("1")
    monkeypatch.setattr(cache_files, "_PACKAGE", package)
    monkeypatch.setattr(cache_files, "grammar_dir", lambda: grammar)
    fingerprint = cache_files.code_fingerprint.__wrapped__
    seen = {fingerprint()}
    for f in files:
        f.write_text("2")
        seen.add(fingerprint())
    (package / "notes.txt").write_text("not source")
    seen.add(fingerprint())
    assert len(seen) == len(files) + 1


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")
    assert cache_files.cache_dir("t") == tmp_path / ".cache" / "boardrules" / "t"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "abs"))
    assert cache_files.cache_dir("t") == tmp_path / "abs" / "boardrules" / "t"


FOREIGN = 12345  # a uid that is not the user running the tests


def test_a_foreign_owned_level_is_neither_read_nor_written(home: Path) -> None:
    cache_files.write("t", "a", b"one")
    for level in (home.parent, home, home / "t", home / "t" / "a"):
        before = level.stat()
        os.chown(level, FOREIGN, -1)
        assert cache_files.read("t", "a") is None, level
        if level.name != "a":  # a foreign directory is not written into either
            cache_files.write("t", "b", b"two")
            assert not (home / "t" / "b").exists(), level
        os.chown(level, before.st_uid, before.st_gid)
    assert cache_files.read("t", "a") == b"one"


def test_a_level_others_can_write_is_refused_unless_it_is_above_the_cache_and_sticky(home: Path) -> None:
    cache_files.write("t", "a", b"one")
    for level in (home, home / "t"):
        os.chmod(level, 0o1777)  # sticky does not excuse a level of the cache itself
        assert cache_files.read("t", "a") is None, level
        os.chmod(level, 0o700)
    base = home.parent
    os.chmod(base, 0o777)  # others could rename boardrules/ away and put their own in its place
    assert cache_files.read("t", "a") is None
    os.chmod(base, 0o1777)  # like /tmp: others cannot rename what they do not own
    assert cache_files.read("t", "a") == b"one"
    os.chmod(base, 0o700)


@pytest.mark.parametrize("level", ["boardrules", "t", "a"])
def test_a_symbolic_link_at_any_level_is_refused(home: Path, tmp_path: Path, level: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "t").mkdir(parents=True, mode=0o700)
    os.chmod(elsewhere, 0o700)
    (elsewhere / "t" / "a").write_bytes(b"planted")
    (elsewhere / "a").write_bytes(b"planted")
    home.mkdir(mode=0o700)
    if level == "boardrules":
        home.rmdir()
        home.symlink_to(elsewhere)
    elif level == "t":
        (home / "t").symlink_to(elsewhere / "t")
    else:
        (home / "t").mkdir(mode=0o700)
        (home / "t" / "a").symlink_to(elsewhere / "a")
    assert cache_files.read("t", "a") is None
    cache_files.write("t", "b", b"two")
    assert not (elsewhere / "t" / "b").exists() and not (elsewhere / "b").exists()
    if level == "a":  # an entry is replaced by the rename, never written through
        cache_files.write("t", "a", b"mine")
        assert (elsewhere / "a").read_bytes() == b"planted"
        assert cache_files.read("t", "a") == b"mine"


def test_every_level_is_created_for_the_user_alone_whatever_the_umask(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x" / "y"))
    for mask in (0o000, 0o777):
        old = os.umask(mask)
        try:
            cache_files.write(f"t{mask}", "a", b"one")
        finally:
            os.umask(old)
        assert cache_files.read(f"t{mask}", "a") == b"one"
    for level in (tmp_path / "x", tmp_path / "x" / "y", tmp_path / "x" / "y" / "boardrules",
                  tmp_path / "x" / "y" / "boardrules" / "t0", tmp_path / "x" / "y" / "boardrules" / "t511"):
        assert stat.S_IMODE(level.stat().st_mode) == 0o700, level
    for entry in (tmp_path / "x" / "y" / "boardrules" / "t0" / "a", tmp_path / "x" / "y" / "boardrules" / "t511" / "a"):
        assert stat.S_IMODE(entry.stat().st_mode) == 0o600


@pytest.mark.parametrize("level", ["boardrules", "t"])
def test_a_directory_swapped_between_check_and_open_changes_nothing(home: Path, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch,
                                                                   level: str) -> None:
    cache_files.write("t", "a", b"mine")
    swapped = home if level == "boardrules" else home / "t"
    planted = tmp_path / "planted"
    (planted / "t").mkdir(parents=True, mode=0o700)
    os.chmod(planted, 0o700)
    (planted / "t" / "a").write_bytes(b"planted")  # owned by the user too: only the descriptor tells them apart
    (planted / "a").write_bytes(b"planted")

    def swap() -> None:  # what renameat2(RENAME_EXCHANGE) by another user would do at the worst moment
        swapped.rename(tmp_path / "moved")
        planted.rename(swapped)

    monkeypatch.setattr(cache_files, "_between_checks", swap)
    assert cache_files.read("t", "a") == b"mine"


def test_entry_names_never_leave_the_directory(home: Path) -> None:
    cache_files.write("t", "a", b"one")
    for name in ("", ".", "..", "../t/a", "x\0y"):
        cache_files.write("t", name, b"two")
        assert cache_files.read("t", name) is None
    assert cache_files.read("..", "t") is None
    assert sorted(p.name for p in home.iterdir()) == ["t"]


def test_a_directory_exchanged_again_and_again_while_reading_is_never_used(home: Path, tmp_path: Path) -> None:
    """The attack of the report: another user exchanges the cache directory with their own, as fast as they can,
    with renameat2(RENAME_EXCHANGE), while the user reads."""
    import ctypes
    import threading

    libc = ctypes.CDLL(None, use_errno=True)
    if not hasattr(libc, "renameat2"):
        pytest.skip("no renameat2 here")
    at_fdcwd, rename_exchange = -100, 2
    cache_files.write("t", "a", b"mine")
    planted = tmp_path / "planted"
    planted.mkdir(mode=0o700)
    (planted / "a").write_bytes(b"planted")
    os.chown(planted / "a", FOREIGN, -1)
    os.chown(planted, FOREIGN, -1)
    stop = threading.Event()
    swaps = [0]

    def attacker() -> None:
        a, b = str(home / "t").encode(), str(planted).encode()
        while not stop.is_set():
            if libc.renameat2(at_fdcwd, a, at_fdcwd, b, rename_exchange) == 0:
                swaps[0] += 1

    thread = threading.Thread(target=attacker)
    thread.start()
    try:
        seen = {cache_files.read("t", "a") for _ in range(3000)}
    finally:
        stop.set()
        thread.join()
    assert swaps[0] > 0
    assert b"planted" not in seen and b"mine" in seen


def test_no_home_directory_means_no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOARDRULES_NO_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", no_home)
    assert cache_files.cache_dir("t") is None
    cache_files.write("t", "a", b"one")
    assert cache_files.read("t", "a") is None
