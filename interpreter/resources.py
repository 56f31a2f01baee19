"""Where the grammar, the schemas and the shipped rule packs are, installed or in a checkout."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def _find(name: str) -> Path:
    # In a wheel they sit inside the package; in a checkout they are siblings of interpreter/.
    for candidate in (_HERE / name, _HERE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"boardrules is missing its {name}/ directory (looked beside {_HERE})")


def grammar_dir() -> Path:
    return _find("grammar")


def rules_dir() -> Path:
    return _find("rules")


def installed_version() -> str:
    """The installed distribution's version, for `--version` and the files `init` writes."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("boardrules")
    except PackageNotFoundError:  # run from a checkout that is not installed
        return "(not installed)"
