"""The names of a module's sections and of the blocks a rule body may hold: one list each, for the linker,
hooks, extend, explain, the module checks and the editor support."""

from __future__ import annotations

# Sections whose entries each declare a name (the linker declares them; the editor and the module checks index them).
DECLARING = ("sets", "values", "counters", "pieces", "zones", "tracks", "dice", "events", "costs", "procedures",
             "setup", "actions", "triggers", "scoring", "substitutes")

# Sections whose entries a module may `replace:`.
REPLACEABLE = ("values", "costs", "actions", "procedures", "setup", "triggers", "scoring")

# Sections whose entries are rules with a body (`do:`): what hooks wrap and extend reaches into.
RULE_SECTIONS = ("setup", "actions", "triggers", "procedures", "scoring")

# The keys that make a mapping in a body a block, in the order the effect builder looks for them.
BLOCK_KEYS = ("if", "for", "repeat", "match", "one_of", "may", "as", "while", "step")
