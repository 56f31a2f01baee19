"""boardrules: board-game rules as data."""

__version__ = "0.1.0"
