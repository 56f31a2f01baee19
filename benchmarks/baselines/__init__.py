"""Hand-written baselines for the interpreter benchmarks: each benchmarked rule written twice in plain Python.

For every rule, one version as the rule reads (line by line) and one tuned as a careful programmer would write it
(one pass over a zone, keys and invariants computed once, locals). Both run on the engine's own State store and do
the engine's bookkeeping for an action (bookkeeping.py), so that `engine / baseline` measures the interpreter and
nothing else. tests/test_baselines_differential.py proves each of them does what the engine does.

Game rules written in Python live here only, never in `interpreter/`.
"""
