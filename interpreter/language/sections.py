"""The names of a module's rule sections and of the blocks a rule body may hold: one list each, for the linker,
hooks, extend, mutate and the editor support."""

from __future__ import annotations

# Sections whose entries are rules with a body (`do:`): what hooks wrap, mutate changes, extend reaches into.
RULE_SECTIONS = ("setup", "actions", "triggers", "procedures", "scoring")

# The keys that make a mapping in a body a block, in the order the effect builder looks for them.
BLOCK_KEYS = ("if", "for", "repeat", "match", "one_of", "may", "as", "while", "step")
