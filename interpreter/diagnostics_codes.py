"""The one registry of diagnostic codes: what each code means, how bad it is, and a wrong and a right example.

The error-code table of docs/language.md and `boardrules check --explain CODE` are generated from this table, and
the test suite fails when a code is emitted that is not here, or is here and never emitted by any test. Adding a
code is one entry below.

Ranges: 1xx load, 2xx schema, 3xx parse, 4xx link, 5xx run, 6xx unknown values, 7xx scenarios, 8xx static
analysis (`boardrules check`), 9xx boardrules itself.
"""

from __future__ import annotations

import textwrap

from .dataclass_code import dataclass


@dataclass(frozen=True, slots=True)
class Code:
    code: str
    severity: str  # error or warning
    stage: str  # load, schema, parse, link, run, check, test
    summary: str  # one line, for the docs table
    explanation: str  # a paragraph: why it is reported and what to do
    wrong: str  # a small YAML fragment that gets this code
    right: str  # the same fragment, corrected


def _c(code: str, severity: str, stage: str, summary: str, explanation: str, wrong: str, right: str) -> Code:
    return Code(code, severity, stage, summary, " ".join(explanation.split()),
                textwrap.dedent(wrong).strip("\n"), textwrap.dedent(right).strip("\n"))


CODES: dict[str, Code] = {c.code: c for c in (
    _c("E101", "error", "load", "YAML syntax error",
       "The file is not valid YAML: a missing colon, a bad indentation, an unclosed quote or bracket.",
       "counters:\n  coins {per: player}", "counters:\n  coins: {per: player}"),
    _c("E102", "error", "load", "duplicate key",
       "A mapping names the same key twice; YAML would silently keep the last one, so boardrules refuses it.",
       "counters:\n  coins: {per: player}\n  coins: {per: game}", "counters:\n  coins: {per: player}"),
    _c("E103", "error", "load", "tag not allowed (e.g. `!!python/object`)",
       "Only plain YAML is loaded: custom tags could run code or build objects a rule pack never needs.",
       "values:\n  crew: !!python/object:os.system {}", "values:\n  crew: 2"),
    _c("E104", "error", "load", "file too large, too deep, too many nodes after aliases, or a number too large",
       "A module file is at most 256 KiB, 64 levels deep, 10 000 nodes after alias expansion and 64 000 characters "
       "of distinct formulas, with integers at most 10^18 in size, so a hostile file cannot exhaust memory or make "
       "check slow. Split a huge pack into modules.",
       "a: &a [*b, *b, *b]   # aliases that expand without bound", "a: [1, 2, 3]"),
    _c("E105", "error", "load", "file cannot be read / not a mapping",
       "The path does not exist, cannot be read, or the file's top level is not a mapping.",
       "- module: market", "module: market"),
    _c("E115", "error", "any", "more problems on one line or in one file than are listed",
       "At most 20 problems are listed for one source line and 1 000 for one file (and a file's schema check "
       "stops after 200); this one counts the rest, so a line of thousands of wrong items is reported in "
       "moments. Fix the problems listed and check again.",
       "do: [[], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], [], []]",
       "do: [\"me.coins += 1\"]"),
    _c("W115", "warning", "any", "more warnings on one line or in one file than are listed",
       "As E115, when every problem left out is a warning.",
       "counters: {a: {}, b: {}, c: {}, d: {}, e: {}, f: {}, g: {}, h: {}, i: {}, j: {}, k: {}, l: {}, m: {}, "
       "n: {}, o: {}, p: {}, q: {}, r: {}, s: {}, t: {}, u: {}}   # each declared, never used",
       "counters: {a: {}}"),
    _c("E116", "error", "simulate", "an output path of `simulate` cannot be written",
       "`--json` or `--failures` names a place that cannot be written (a missing or read-only directory, a path "
       "under a file): the run is refused before any game is played (exit status 2). When a write fails during "
       "or after the run (a full disk), the game's result or the printed report is kept and the message says "
       "what was not saved.",
       "boardrules simulate PACK --json /etc/passwd/report.json", "boardrules simulate PACK --json report.json"),
    _c("E117", "error", "simulate", "a game was lost: its worker process died",
       "A worker process died while playing a batch of games (killed, out of memory, a crash). Its unfinished "
       "games are played again one at a time; a game whose worker dies a second time is reported as lost, and "
       "every other game is in the report (exit status 1).",
       "a game whose rules make the worker run out of memory", "rules whose games stay within the limits"),
    _c("E118", "error", "simulate", "the run was interrupted (Ctrl-C)",
       "The workers are stopped, the games that finished are reported (and written to `--json`), and the exit "
       "status is 130.",
       "boardrules simulate PACK --games 1000000   # then Ctrl-C", "boardrules simulate PACK --games 1000"),
    _c("E119", "error", "simulate", "the Ray backend could not start or reach its cluster",
       "`--backend ray` could not start a local Ray instance or join the cluster at `--address`; no game was "
       "played (exit status 4).",
       "boardrules simulate PACK --backend ray --address 10.0.0.9:6379   # no cluster there",
       "boardrules simulate PACK --backend process --workers 4"),
    _c("E201", "error", "schema", "unknown key, missing key, or a wrong kind of value",
       "The file does not match grammar/module.schema.json (or scenario.schema.json): a misspelt key, a "
       "required key missing, a list where a mapping belongs.",
       "counters:\n  coins: {pre: player}", "counters:\n  coins: {per: player}"),
    _c("E301", "error", "parse", "expression, cost or effect line does not parse",
       "A string holding an expression, a cost or an effect line breaks the grammar in grammar/rules.lark.",
       "do: ['me.coins += ']", "do: ['me.coins += 1']"),
    _c("E401", "error", "link", "unknown name (with a suggestion)",
       "A name is not declared by the modules linked together, or not visible where it is used. When a module "
       "of the pack that is not required declares it, the hint says which module to add to `requires`.",
       "cost: \"2 coin\"", "cost: \"2 coins\""),
    _c("E402", "error", "link", "wrong type",
       "A value's type does not fit where it is used: arithmetic on a non-number, a comparison between values "
       "that can never be equal, an argument of the wrong type to a procedure, an event or a built-in.",
       "if: me.coins == red", "if: me.coins == 2"),
    _c("E403", "error", "link", "duplicate declaration, a step name used twice in a rule, or a block rebinding a name",
       "Names are global to the composed game: two modules (or two sections) declare the same name; a rule names "
       "two steps alike; or a block binds a name an enclosing block already bound.",
       "# in two modules\ncounters:\n  coins: {per: player}", "replace:\n  values.crew: 3   # change it explicitly"),
    _c("E404", "error", "link", "unknown module in `requires`, or a `requires` cycle",
       "`requires` names a module the pack does not have, or modules require each other in a circle.",
       "requires: [market.bse]", "requires: [market.base]"),
    _c("E405", "error", "link", "wrong number of arguments",
       "A built-in function, a procedure or an event gets more or fewer arguments than it declares.",
       "do: ['call pay_out()']   # pay_out has params {p: player}", "do: ['call pay_out(me)']"),
    _c("E406", "error", "link", "`replace`, `extend` or `wrap` target does not exist, or is not required",
       "`replace`, `extend` or `wrap` names a rule no module declares, or one of a module this module does not "
       "require.",
       "replace:\n  actions.hier: {do: []}", "replace:\n  actions.hire: {do: []}"),
    _c("E407", "error", "link", "two modules change one rule in ways that conflict, or both declare a flow",
       "Two modules replace the same rule, extend one thing with contradicting values, wrap a rule one of them "
       "replaces (`instead`), or both declare the game's flow, and neither requires the other, so which one wins "
       "is unclear.",
       "# a.yaml and b.yaml both: replace: {values.crew: 3}", "# b.yaml: requires: [a]  (b wins, explicitly)"),
    _c("E408", "error", "link", "an option names no value, counter or property default",
       "An option given to a game (`--set NAME=VALUE`, a scenario's `options:`) must name a value, a counter's "
       "starting value or a property's default of the modules played.",
       "boardrules check --set start_workerz=5", "boardrules check --set start_workers=5"),
    _c("E409", "error", "link", "a piece property named like a built-in piece field",
       "Every piece has the built-in fields `id`, `kind`, `zone`, `slot` and `linked`, and `$x.zone` always reads "
       "the built-in one, so a property of that name could never be read. Declared in `pieces:` or added by "
       "`extend:`, it is refused; rename it.",
       "pieces:\n  boat: {properties: {zone: {type: symbol}}}",
       "pieces:\n  boat: {properties: {home: {type: symbol}}}"),
    _c("E501", "error", "run", "guard or `require` failed: illegal action",
       "The action's `allowed_if` or a `require` does not hold in this state; the state is left unchanged.",
       "steps: [{action: hire, player: p1}]   # p1 has no workers", "steps: [{action: hire, player: p2}]"),
    _c("E502", "error", "run", "cost cannot be paid",
       "The payer does not have enough of what the cost asks; the state is left unchanged.",
       "cost: \"5 coins\"   # with 3 coins", "cost: \"2 coins\""),
    _c("E503", "error", "run", "limit exceeded",
       "A `limit` was used more times than allowed in its scope (action, turn, round or game).",
       "do: ['limit hire to 1 per turn']   # taken twice in a turn", "take it once per turn"),
    _c("E504", "error", "run", "zone or slot full",
       "A piece would be moved into a zone or slot already at its capacity.",
       "zones: {shelf: {capacity: 1}}\n# two moves into shelf", "zones: {shelf: {capacity: 2}}"),
    _c("E505", "error", "run", "answer not among the options",
       "A scripted or given answer is not one of the decision's options, or the decision is someone else's.",
       "answers: [purple]   # options are red, blue", "answers: [red]"),
    _c("E506", "error", "run", "no scripted answer for a decision",
       "A scenario step asked a decision its `answers` do not cover.",
       "steps: [{action: choose_colour, player: p1}]", "steps: [{action: choose_colour, player: p1, answers: [red]}]"),
    _c("E507", "error", "run", "step budget exceeded (trigger loop)",
       "One action ran more than 10 000 effect steps or nested triggers more than 64 deep.",
       "triggers:\n  again: {on: ping, do: ['emit ping()']}",
       "triggers:\n  again: {on: ping, do: ['limit again to 3 per action', 'emit ping()']}"),
    _c("E508", "error", "run", "counter out of range",
       "A change would take a counter below its `min` or above its `max`; clamp in the formula where the rules say "
       "'never below'.",
       "do: ['price[t] -= 1']", "do: ['price[t] = max(1, price[t] - 1)']"),
    _c("E509", "error", "run", "unknown action or wrong parameters",
       "The action does not exist, a parameter is missing, unknown or of the wrong type, or the player count is "
       "outside the modules' range. `check` reports this for scenario files too.",
       "steps: [{action: hier, player: p1}]", "steps: [{action: hire, player: p1}]"),
    _c("E510", "error", "run", "a runtime type error (e.g. moving something that is not a piece)",
       "A value whose type is known only in play turned out wrong, e.g. `none` where a piece is needed.",
       "do: ['draw w from bag', 'move w to farm']",
       "do: ['draw w from bag', {if: 'w != none', then: ['move w to farm']}]"),
    _c("E511", "error", "run", "too many moves or subsets to list",
       "Listing the legal moves would enumerate more parameter combinations or subset choices than the bound: a "
       "parameter's domain or a subset choice is too large. Narrow the domain (`in:`).",
       "params: {n: {type: int, in: \"1..100000\"}}", "params: {n: {type: int, in: \"1..6\"}}"),
    _c("E512", "error", "api", "a save that is not a save, does not fit the game (modules, rules, options, players, "
       "chance mode), or does not replay",
       "A saved game (or failure file, or OpenSpiel state string) is checked before anything is replayed: strict "
       "JSON of bounded size and depth, valid against grammar/save.schema.json, a fingerprint that matches the "
       "rules, options, players, chance mode and flow; then replaying its log must give its state.",
       "Game.deserialize('{\"not\": \"a save\"}', rules)", "Game.deserialize(game.serialize(), rules)"),
    _c("E513", "error", "run", "a work limit is exceeded",
       "Each action runs within a budget of work: loop iterations and elements gone through, pieces created, track "
       "steps, the size of one range and of any number (SECURITY.md lists the limits and their defaults). Going "
       "over it stops the action, names the rule and the limit, and leaves the state as it was. `check` reports "
       "a constant that is already over a limit (a repeat count, a literal range, `create N`, a die's sides).",
       "do: [{repeat: 1000000000000, do: []}]", "do: [{repeat: 6, do: ['me.coins += 1']}]"),
    _c("E542", "error", "run", "a table has no entry for the key read",
       "A table read with a key known only at run time (a parameter, a loop variable) that the table has no entry "
       "for, and the table has no `default`: the action stops and the state is left as it was.",
       "values:\n  worth: {table: {red: 1}}\ndo: ['me.points += worth[c]']   # c is blue",
       "values:\n  worth: {table: {red: 1}, default: 0}\ndo: ['me.points += worth[c]']"),
    _c("W520", "warning", "run", "a move or option dropped by the legal-move search because of a rule bug",
       "The legal-move search tries each candidate move and option in a dry run. A refusal (a guard, `require`, "
       "a cost, a limit, a full zone, a counter's range) makes it illegal; any other failure (a loop, a work "
       "limit, an unknown value, a type error) is a bug in the rules that would otherwise silently remove the "
       "move from play. `simulate` reports each at its rule with how often it happened (an error with "
       "`--strict`); programs read `Game.problems`.",
       "do: ['me.coins += bonus']   # bonus is unknown: the move vanishes from every game",
       "values: {bonus: 3}"),
    _c("W521", "warning", "check", "an action whose moves and choices are too many to search",
       "A move is listed only when a dry run proves it can finish, so the search tries every value of the "
       "action's parameters and every answer of the choices inside it. When the product of their sizes is "
       "beyond the search's work budget, listing the legal moves stops with E513: narrow the domains or the "
       "choices.",
       "params: {n: {type: int, in: \"1..9999\"}}\ndo: ['choose x from 1..2000']",
       "params: {n: {type: int, in: \"1..9\"}}\ndo: ['choose x from 1..20']"),
    _c("W601", "warning", "check", "a value the source leaves unknown",
       "The pack says `unknown` where the source text leaves a number open. The game stops with E601 if it ever "
       "needs the value. These are the documented unknowns of a pack.",
       "values:\n  bonus: {unknown: \"check against the card\"}", "values:\n  bonus: 3   # once the card is known"),
    _c("E601", "error", "run", "an unknown value reached at run time",
       "An arithmetic, comparison or test needed a value the pack marks `unknown`.",
       "values: {bonus: {unknown: \"on the card\"}}\ndo: ['me.coins += bonus']", "values: {bonus: 3}"),
    _c("E415", "error", "link", "a mapping of key to number for a counter without keys",
       "A counter's `initial`, `min` or `max` may be a mapping of key to number only when the counter has `keys`: "
       "each key then has its own start or limit. A counter without keys has one number.",
       "counters:\n  coins: {per: player, max: {gold: 5}}", "counters:\n  coins: {per: player, max: 5}"),
    _c("E416", "error", "link", "a limit or start for a key the counter does not have",
       "A mapping in a keyed counter's `initial`, `min` or `max` names a key that is not one of the counter's keys.",
       "counters:\n  stock: {per: player, keys: [ore, wood], max: {oer: 5}}",
       "counters:\n  stock: {per: player, keys: [ore, wood], max: {ore: 5}}"),
    _c("E420", "error", "link", "a time after `end` that is not one `end game` knows",
       "Only `end game` says when the game ends: `now` (the default), `after this turn`, `after this round` or "
       "`after next round`. `end turn` and `end round` take nothing after them, and the game cannot end after "
       "another game.",
       "do: [end turn after this round]", "do: [end game after this round]"),
    _c("E421", "error", "link", "`end game` in the flow's `end.do`, where the game is already over",
       "The flow's `end.do` runs once the game has ended, so there is no end left to ask for there.",
       "flow:\n  end: {when: round_number > 4, do: [score, end game]}",
       "flow:\n  end: {when: round_number > 4, do: [score]}"),
    _c("E422", "error", "link", "`end.after` without `end.when`",
       "`after:` says when the game ends once `when:` holds (this_turn, this_round, next_round); without `when:` "
       "there is nothing for it to follow. A rule that ends the game says `end game after ...` itself.",
       "flow:\n  end: {after: this_round, do: [score]}",
       "flow:\n  end: {when: count(deck) == 0, after: this_round, do: [score]}"),
    _c("E423", "error", "link", "a table declared wrong",
       "A `{table: ...}` value maps keys to entries. Its symbol keys must be declared symbols (in a set, or a "
       "counter's keys), and with `keys:` every key must be in that set and every symbol of the set needs an entry, "
       "unless the table has a `default`. Its entries are all of one kind (numbers, true/false or symbols, or "
       "`{unknown: ...}`), every entry needs the same number of keys, and the default is of the entries' kind.",
       "values:\n  worth: {table: {red: 1, bleu: 2}, keys: colours}",
       "values:\n  worth: {table: {red: 1, blue: 2}, keys: colours}"),
    _c("E424", "error", "link", "a table read with a key it has no entry for, of the wrong type, or without its keys",
       "A table is read as `name[key]` (`name[k1][k2]` for a table of tables). A key written as a constant must "
       "be one the table has (or the table needs a `default`); a key of another type than the table's keys (a "
       "number for a table keyed by symbols) can never be found; a table is not read without its keys.",
       "values:\n  worth: {table: {red: 1, blue: 2}}\ndo: ['me.points += worth[green]']",
       "values:\n  worth: {table: {red: 1, blue: 2}, default: 0}\ndo: ['me.points += worth[green]']"),
    _c("E425", "error", "link", "`rank_by` over something that is not players, or by a key that is not a number",
       "`rank_by(KEY, PLAYERS)` ranks the acting player (`rank_by(KEY, PLAYERS, P)`: P) among a list of players "
       "by KEY, a number (or a list of numbers) worked out for each of them as `it`.",
       "do: ['me.points += rank_by(it.coins, pieces(worker))']",
       "do: ['me.points += rank_by(it.coins, players)']"),
    _c("E426", "error", "link", "a cost term on something that is neither a counter nor a track marker",
       "A cost term pays a counter (`2 coins`, `1 gems[any]`) or moves a track marker (`2 time`, with `time` a "
       "marker). A track, a zone or a value cannot be paid, and a marker has no keys (`[any]`, `[red]`).",
       "cost: \"2 clock\"     # clock is the track", "cost: \"2 time\"      # time is the marker on it"),
    _c("E427", "error", "link", "a trigger on what a limit absorbs, where the limit never absorbs",
       "`on: {overflow: c}` runs on the part of a gain that c's cap absorbed, so c needs a `max` and `overflow: "
       "discard` or `carry`; `on: {underflow: c}` runs on the part of a loss its floor absorbed, so c needs "
       "`underflow: discard`. A counter that refuses (the default, E508) never absorbs anything.",
       "counters:\n  fame: {per: player, max: 10}\ntriggers:\n  spill: {on: {overflow: fame}, do: []}",
       "counters:\n  fame: {per: player, max: 10, overflow: discard}\n"
       "triggers:\n  spill: {on: {overflow: fame}, do: []}"),
    _c("E428", "error", "link", "an `extend` of a choice whose rule or step holds no `one_of`, or several",
       "`extend: {actions.a.s: {one_of: ...}}` changes the one `one_of` of the rule (or of its named step `s`). "
       "A target holding none, or more than one (name a step around the one meant), or a change that leaves the "
       "choice without any option, is refused.",
       "extend:\n  actions.sow: {one_of: {drop: [rye]}}   # sow has two one_of blocks",
       "extend:\n  actions.sow.crop: {one_of: {drop: [rye]}}   # the one in the step named crop"),
    _c("E429", "error", "link", "an `extend` drops an option the choice does not have",
       "`drop:` names options by their labels; a label the `one_of` does not have (after the modules this one "
       "requires changed it) is a typo or an option another module, not required, adds.",
       "extend:\n  actions.sow.crop: {one_of: {drop: [ryee]}}",
       "extend:\n  actions.sow.crop: {one_of: {drop: [rye]}}"),
    _c("E430", "error", "link", "an `extend` adds an option the choice already has",
       "An added option's label must be new to the `one_of`: to change an option, drop it and add one under "
       "another label, or replace the rule.",
       "extend:\n  actions.sow.crop: {one_of: {options: {rye: [...]}}}   # crop has rye",
       "extend:\n  actions.sow.crop: {one_of: {options: {spelt: [...]}}}"),
    _c("E701", "error", "test", "an expectation does not hold",
       "A scenario's `expect` entry evaluated to something else; the runner names the rule that last changed it.",
       "expect: {p1.coins: 2}   # it is 1", "expect: {p1.coins: 1}"),
    _c("E702", "error", "test", "a step expected to fail succeeded, or failed with another code",
       "A step with `expect_error` did not fail with that code.",
       "steps: [{action: buy, player: p1, expect_error: E502}]   # p1 can pay",
       "steps: [{action: buy, player: p1}]"),
    _c("E710", "error", "test", "a scenario with `flow: true` and `setup: false`",
       "A flow starts from the setup (its first phase, the first player's turn), so a scenario that follows the flow "
       "runs the setup. Give the starting state it needs with `state:`, which applies after the setup.",
       "flow: true\nsetup: false", "flow: true\nstate: {counters: {p1.coins: 0}}"),
    _c("E711", "error", "test", "a step failed with the expected code, but not by the refusal it names",
       "An `expect_error` that names the refusal (`message`, `rule` or `at`) matched the code, but the error came "
       "from another rule or said something else: the step was refused for another reason than the one meant.",
       "expect_error: {code: E501, rule: \"me.coins >= 2\"}   # refused by the turn limit instead",
       "expect_error: {code: E503, rule: \"once per turn\"}"),
    _c("E712", "error", "test", "a step failed as expected before asking for all its answers",
       "A step with `expect_error` failed with that code, but answers or rolls it scripts were never asked for: "
       "the refusal came earlier than the scenario says, so it is likely not the one meant.",
       "steps: [{action: sow, expect_error: E501, answers: [2]}]   # refused before the choice",
       "steps: [{action: sow, expect_error: E501}]"),
    _c("E713", "error", "test", "a scenario whose setup must fail has state, steps or expect",
       "A scenario with a top-level `expect_error` shows that its setup fails; nothing runs after a failed setup, so "
       "`state`, `steps` and `expect` would never be checked.",
       "expect_error: E509\nsteps: [{action: work}]", "expect_error: E509"),
    _c("E760", "error", "lab", "a lab output needs an optional package that is not installed",
       "Parquet rows (`simulate --out FILE.parquet`) need pyarrow, and the report's plots need matplotlib: both "
       "come with `pip install 'boardrules[report]'`. JSON Lines rows need nothing more.",
       "boardrules simulate PACK --out games.parquet   # without pyarrow",
       "boardrules simulate PACK --out games.jsonl"),
    _c("E761", "error", "lab", "`view` cannot show this file",
       "`boardrules view` shows a game saved by `play` (s FILE) or a failure log written by `simulate`, played "
       "again from its seed and log with the pack's flow. Another file, a game played without the flow, or a log "
       "that does not replay on the pack as it is now is refused.",
       "boardrules view report.json   # simulate's --json summary",
       "boardrules view boardrules-failures/relay-seed3-invariant.json"),
    _c("W801", "warning", "check", "declared but never used",
       "Nothing reads or writes this counter, zone, value, property, event, procedure or cost. Remove it, or mark "
       "it `input: true` if only scenarios or an embedding program use it.",
       "counters:\n  favour: {per: player}", "counters:\n  favour: {per: player, input: true}"),
    _c("W802", "warning", "check", "written but never read",
       "Rules change it (or emit it) but no rule, guard, cost or trigger ever looks at it. Mark it `output: true` "
       "if it exists to be scored or shown.",
       "counters:\n  points: {per: player}", "counters:\n  points: {per: player, output: true}"),
    _c("W803", "warning", "check", "read but never written",
       "Rules read it, but no rule or setup ever sets it and it starts empty, at zero or without a default, so every "
       "read sees the start. Mark it `input: true` if scenarios or an embedding program set it.",
       "counters:\n  favour: {per: player}\nactions: {a: {allowed_if: me.favour > 0}}",
       "counters:\n  favour: {per: player, input: true}"),
    _c("W804", "warning", "check", "a cost paid in something nothing provides",
       "A cost asks for a counter that starts at zero and that no rule or setup ever increases, so it can never be "
       "paid in play.",
       "counters: {wood: {per: player}}\ncosts: {build: \"2 wood\"}",
       "counters: {wood: {per: player, initial: 3}}"),
    _c("W811", "warning", "check", "a trigger on an event nothing emits",
       "No rule emits or defers this event, so the trigger never runs. `turn_end` counts as emitted by `end turn`.",
       "triggers: {tidy: {on: round_end, do: [...]}}   # nothing emits round_end",
       "do: ['emit round_end()']   # somewhere a rule emits it"),
    _c("W812", "warning", "check", "`defer ... until` an event nothing emits",
       "The deferred event waits for an event no rule emits, so it never runs.",
       "do: ['defer payout(me) until market_closed']", "do: ['defer payout(me)']   # waits for turn_end"),
    _c("E813", "error", "check", "triggers that can call each other without bound",
       "A cycle of triggers (through emitted events, procedures called) has nothing that stops it: no `limit`, no "
       "cost paid, no `may`. Every rule on the cycle is named. Break it with one of those, or the game stops with "
       "E507 when it runs.",
       "triggers:\n  a: {on: ping, do: ['emit pong()']}\n  b: {on: pong, do: ['emit ping()']}",
       "triggers:\n  a: {on: ping, do: ['limit a to 1 per action', 'emit pong()']}"),
    _c("E831", "error", "check", "two modules set the same fact without one requiring the other",
       "Two modules both set a top-level fact (the player counts) and neither requires the other, so which one "
       "wins depends on the order they are listed in.",
       "# solo.yaml and duel.yaml both: players: {min: 1, max: 2}",
       "# duel.yaml: requires: [solo]   (duel wins, explicitly)"),
    _c("E841", "error", "check", "a scenario names something the modules do not have",
       "A scenario's modules, action, parameter, answer, player count, or a counter, zone, piece or marker in its "
       "`state` or `expect`, does not resolve against the modules it loads. Reported by `check` at the place in "
       "the scenario file.",
       "modules: [market]\nsteps: [{action: buy_aple, player: p1}]",
       "modules: [market]\nsteps: [{action: buy_apple, player: p1}]"),
    _c("W821", "warning", "check", "a guard that can never hold",
       "Given counter ranges, zone capacities and player counts, the condition is always false, so the action, "
       "branch or requirement can never pass.",
       "counters: {coins: {per: player, max: 5}}\nallowed_if: me.coins > 9",
       "allowed_if: me.coins > 4"),
    _c("W822", "warning", "check", "a guard that always holds",
       "Given counter ranges, zone capacities and player counts, the condition is always true: it checks nothing.",
       "allowed_if: me.coins >= 0   # coins never go below 0", "allowed_if: me.coins >= 2"),
    _c("E823", "error", "check", "a `[different]` cost asks for more kinds than exist",
       "`N x[different]` needs N distinct keys, but the counter has fewer keys, so it can never be paid.",
       "sets: {goods: [wine, cloth]}\ncost: \"3 stock[different]\"", "cost: \"2 stock[different]\""),
    _c("E824", "error", "check", "a cost larger than the counter can ever hold",
       "At some player count the counter's `max` is below the amount asked, so the cost can never be paid there.",
       "counters: {coins: {per: player, max: 5}}\ncost: \"6 coins\"", "cost: \"5 coins\""),
    _c("E825", "error", "check", "limits and capacities that contradict each other",
       "A counter's `min` above its `max`, a starting value outside its range, a limit of 0 uses, or a zone's "
       "`capacity` that its slots can never hold.",
       "counters: {coins: {per: player, min: 2, max: 1}}", "counters: {coins: {per: player, min: 1, max: 2}}"),
    _c("W851", "warning", "check", "a number that disagrees with its source quote (or a die's name)",
       "A declaration or a rule carries a `source` whose quoted words name numbers (in digits or words), and none "
       "of them is the number declared; or a die named for its sides (d4) has another number of sides. A "
       "heuristic: read the source again.",
       "dice:\n  d4: {sides: 6, source: 'rules.txt, \"roll the four-sided die\"'}",
       "dice:\n  d4: {sides: 4, source: 'rules.txt, \"roll the four-sided die\"'}"),
    _c("E850", "error", "check", "a counter trigger that changes its own counter without end",
       "A trigger on every change of a counter (`on: {change: c}` without `if:`), or on each multiple of `every:`, "
       "changes the same counter the way it watches: each run starts the next, and the action stops with E507.",
       "triggers:\n  heat_up: {on: {change: heat}, do: ['heat += 1']}",
       "triggers:\n  heat_up: {on: {change: heat}, if: new < 5, do: ['heat += 1']}"),
    _c("E851", "error", "link", "an option outside the range it feeds",
       "An option (`--set`, `--options`, a scenario's `options:`) sets a value that a counter starts at (its "
       "`initial`) to a number outside the counter's `min`/`max`, or a value that a zone's capacity or slots or a "
       "track's spaces is given by to a negative number (no spaces). An option on the counter itself is E402.",
       "values: {start: 1}\ncounters: {season: {per: game, initial: start, min: 1, max: 4}}\n"
       "# boardrules check --set start=7",
       "# boardrules check --set start=3"),
    _c("W852", "warning", "check", "an action no phase offers and no rule takes",
       "With a `flow`, players act only with the actions of the current phase. An action (by a player) that no "
       "phase lists and no rule takes with `take` can never be taken in a game.",
       "actions: {rest: {do: []}}\nflow:\n  phases: {play: {turns: {}, actions: [buy]}}",
       "flow:\n  phases: {play: {turns: {}, actions: [buy, rest]}}"),
    _c("W853", "warning", "check", "a phase that never runs",
       "The phase's `if:` holds in no round the game reaches: the end condition always comes first (`round_number "
       "> 4` ends the game before round 9), or the counters it reads never get there.",
       "phases:\n  harvest: {if: round_number > 8, do: [...]}\nend: {when: round_number > 4}",
       "phases:\n  harvest: {if: round_number > 2, do: [...]}"),
    _c("W854", "warning", "check", "an action guard that contradicts its phase's condition",
       "Every phase that offers the action runs only when its `if:` holds, and the action's `allowed_if` can "
       "never hold at the same time, so the action is never legal where it is offered.",
       "phases: {late: {if: round_number > 3, turns: {}, actions: [buy]}}\nactions:\n  buy: {allowed_if: "
       "round_number < 2, do: []}",
       "actions:\n  buy: {allowed_if: round_number < 5, do: []}"),
    _c("W855", "warning", "check", "an end condition that can never hold, or that holds at once",
       "The flow's `end.when` reads counters that the rules never move toward it (a market that only fills, "
       "asked to be empty), or it already holds in round 1, so no phase runs.",
       "counters: {market: {per: game, initial: 5}}   # only ever increased\nend: {when: market == 0}",
       "end: {when: market >= 20}"),
    _c("W856", "warning", "check", "a ranking key nothing writes",
       "A key of the flow's `ranking` reads only counters that no rule ever changes: every player ties on it.",
       "ranking: [me.points, me.fame]   # nothing changes fame", "ranking: [me.points, me.coins]"),
    _c("W857", "warning", "check", "a threshold beyond the counter's range or the track",
       "A trigger's `crosses:` mark is above the counter's max, at or below its min (going up it never comes from "
       "below), or outside the marker's track, so the trigger never runs.",
       "counters: {points: {per: player, max: 20}}\non: {change: points, crosses: 25}",
       "on: {change: points, crosses: 15}"),
    _c("W858", "warning", "check", "a threshold trigger on a counter no rule moves its way",
       "A `crosses:` or `every:` trigger counts going up (or down, with `direction: down`), but no rule, cost or "
       "overflow ever moves the counter that way, so it never runs.",
       "on: {change: coins, crosses: 0, direction: down}   # coins are only ever gained",
       "on: {change: coins, crosses: 10}"),
    _c("W859", "warning", "check", "an instead hook that drops what others rely on",
       "An `instead` hook never runs `proceed`, and the rule it replaces changes counters other rules read or "
       "emits events triggers wait for: those rules silently lose their input.",
       "wrap:\n  procedures.spend: {instead: ['me.points += 2']}   # spend emitted paid()",
       "wrap:\n  procedures.spend: {instead: ['proceed', 'me.points += 2']}"),
    _c("W860", "warning", "check", "a substitute that pays nothing, or pays a thing with itself",
       "A substitute's `with:` costs nothing (every cost in its counter becomes free), or pays the counter with the "
       "same counter, which offers no new way to pay.",
       "substitutes:\n  gift: {pay: 1 coins, with: 0 gems}", "substitutes:\n  gift: {pay: 1 coins, with: 1 gems}"),
    _c("W861", "warning", "check", "a while loop whose condition its body never changes",
       "Nothing in the loop's body, nor the procedures, actions and triggers it runs, changes what the condition "
       "reads, so the loop runs forever (stopped by the step budget, E507) or never.",
       "- let n = 3\n- while: n > 0\n  do: ['me.points += 1']",
       "- let n = 3\n- while: n > 0\n  do: ['me.points += 1', 'n -= 1']"),
    _c("W862", "warning", "check", "a write overwritten before anything reads it",
       "A line sets a counter or a local name with `=`, and a later line of the same block sets it again with `=` "
       "without reading it, with only plain assignments that neither read it nor start a trigger in between (and "
       "no trigger watches the counter): the first write does nothing.",
       "do: ['me.coins = 2', 'me.coins = 5']", "do: ['me.coins = 2', 'me.coins += 5']"),
    _c("W863", "warning", "check", "a scenario whose expectations already hold before its steps",
       "Every `expect` entry is a counter that already has the expected value before the steps (from `state:` or "
       "its declaration, untouched by setup), and no step's action can change it: the scenario would pass without "
       "its steps, so it proves nothing about them.",
       "steps: [{action: plant, player: p1}]\nexpect: {p1.points: 0}   # plant never scores",
       "steps: [{action: plant, player: p1}]\nexpect: {p1.coins: 1}   # plant costs 2 of 3 coins"),
    _c("W864", "warning", "check", "a symbol or key an extension adds that nothing uses",
       "`extend:` adds a symbol to a set or a key to a counter, but no rule names it, iterates the set, or reaches "
       "the counter's cells by `[any]`, `[different]` or a key held in a name: the addition changes nothing.",
       "extend:\n  sets.moods: [sulky]   # no rule says sulky, none goes through moods",
       "extend:\n  sets.moods: [sulky]\nactions:\n  sulk: {do: [{match: me.mood, cases: {sulky: [...]}}]}"),
    _c("W865", "warning", "check", "a trigger on a zone that nothing fills or empties",
       "A trigger watches a zone's number of pieces coming in (`crosses:` or `every:` going up) but no rule moves "
       "or creates a piece into it, refills it or carries overflow to it; or it counts pieces going out "
       "(`direction: down`) but no rule moves, removes or refills pieces at all. It can never run.",
       "triggers:\n  deck_gone: {on: {change: deck, crosses: 0, direction: down}, do: [...]}   # nothing leaves deck",
       "actions:\n  draw: {do: [move first(deck) to me.hand]}\ntriggers:\n  deck_gone: {on: {change: deck, crosses: 0, "
       "direction: down}, do: [...]}"),
    _c("W866", "warning", "check", "a marker trigger that can never run given how the marker moves",
       "A trigger on a marker's moves waits for something no rule does: nothing advances or places the marker; a "
       "`crosses:` or `every:` mark on a marker that is only placed (`place` passes no space); or, on a straight "
       "track, a mark at or before the space the marker starts on when it only moves forward.",
       "tracks: {road: {spaces: 9, markers: {cart: 3}}}\ntriggers:\n  left_town: {on: {change: cart, crosses: 2}, "
       "do: [...]}   # cart starts on 3 and only advances",
       "triggers:\n  far: {on: {change: cart, crosses: 6}, do: [...]}"),
    _c("W867", "warning", "check", "whole-game play reads a value the game module leaves unknown",
       "The pack's game module (the module with a flow that no other module requires, which a whole game plays) "
       "leaves a value `unknown`, and a formula that play reaches (setup, a phase, an action a phase offers, its "
       "guard or cost, the end condition, the ranking, final scoring, or a procedure or trigger these run) reads "
       "it, directly or through a value computed from it: every game stops with E601 there. The hint names the "
       "option that gives it (`--set NAME=VALUE`); W601 lists every unknown, read or not. An unknown declared with "
       "the `type:` its option must have (or `input: true`) is a parameter each game starts with: not reported.",
       "# base.yaml\nvalues: {yield_size: {unknown: 'printed on the card'}}\n# game.yaml (requires base, has a flow)"
       "\nactions: {gather: {do: ['me.ore += yield_size']}}",
       "# game.yaml\nvalues: {yield_size: {value: 3, note: stand-in}}"),
    _c("W868", "warning", "check", "a substitute for something no cost asks",
       "A substitute's `pay:` names a counter (or a key of one, or a marker) that no cost of the game asks for: no "
       "declared cost, action cost or `pay` line has a term it could stand in for, so it is never offered. Often "
       "the counter was renamed, or the substitute names what is paid instead the wrong way round.",
       "costs: {hire: '2 coins'}\nsubstitutes:\n  gems_for_points: {pay: 1 points, with: 2 gems}",
       "costs: {hire: '2 coins'}\nsubstitutes:\n  gems_for_coins: {pay: 1 coins, with: 2 gems}"),
    _c("W869", "warning", "check", "a parameter whose domain is empty",
       "An action's parameter ranges over a range (`in: \"low..high\"`) whose high end is below its low end, at "
       "every player count or some of them (the ends may be values or player-count tables): no value is ever "
       "offered, so the action can never be taken there.",
       "values: {most: {by_players: {2: 0, 3: 1}}}\nactions:\n  buy: {params: {n: {type: int, in: '1..most'}}, "
       "do: [...]}",
       "values: {most: {by_players: {2: 1, 3: 2}}}\nactions:\n  buy: {params: {n: {type: int, in: '1..most'}}, "
       "do: [...]}"),
    _c("E852", "error", "check", "a marker placed at a space its track does not have",
       "`place MARKER at N` where N (a number, a value, or a formula whose range is known) is never one of the "
       "spaces of the marker's track, at any player count: every game that reaches the line stops with E510. "
       "`advance` stops at a straight track's end and wraps on a circular one; `place` does neither.",
       "tracks: {dial: {spaces: 10, markers: {gauge: 1}}}\nactions:\n  reset: {do: ['place gauge at 11']}",
       "tracks: {dial: {spaces: 10, markers: {gauge: 1}}}\nactions:\n  reset: {do: ['place gauge at 10']}"),
    _c("W870", "warning", "check", "scoring rules that never run (no rule says score)",
       "The pack has a flow and scoring rules, but no rule of the game (the flow's `end.do`, an action, a trigger, "
       "a phase) runs the statement `score`, so the scoring rules never run and the ranking reads what play left.",
       "flow:\n  end: {when: round_number > 4, do: []}\nscoring:\n  farms: {do: ['me.points += count(me.farm)']}",
       "flow:\n  end: {when: round_number > 4, do: [score]}\nscoring:\n  farms: {do: ['me.points += count(me.farm)']}"),
    _c("E853", "error", "check", "a take passes a value its parameter's domain never holds",
       "`take ACTION(v)` (or `... as WHO`) passes, written out, a number or a symbol that the parameter's domain "
       "(`in:`, a range, a list or a set) holds at no player count: the take is refused with E509 every time, "
       "and so is the rule that takes it.",
       "actions:\n  buy: {params: {n: {type: int, in: '1..2'}}, do: [...]}\n  bulk: {do: ['take buy(3)']}",
       "actions:\n  buy: {params: {n: {type: int, in: '1..3'}}, do: [...]}\n  bulk: {do: ['take buy(3)']}"),
    _c("E900", "error", "any", "boardrules itself failed (a bug to report)",
       "An exception no stage expected: a bug in boardrules, never a mistake in the rules. The message names the "
       "rule or command being run; the state is left as it was, and `boardrules` exits with status 3. Please "
       "report it with the pack and the command.",
       "# any input that makes boardrules fail", "# the same input, once the bug is fixed"),
)}

def explain(code: str) -> str | None:
    """The text `boardrules check --explain CODE` prints; None for an unknown code."""
    c = CODES.get(code.upper())
    if c is None:
        return None
    return (f"{c.code} ({c.severity}, {c.stage}): {c.summary}\n\n{c.explanation}\n\n"
            f"Wrong:\n{textwrap.indent(c.wrong, '    ')}\n\nRight:\n{textwrap.indent(c.right, '    ')}\n")


def markdown_table() -> str:
    """The error-code table of docs/language.md."""
    rows = ["| code | severity | stage | meaning |", "|---|---|---|---|"]
    rows += [f"| {c.code} | {c.severity} | {c.stage} | {c.summary} |" for c in CODES.values()]
    return "\n".join(rows) + "\n"


BEGIN, END = "<!-- codes:begin (generated from interpreter/diagnostics_codes.py) -->", "<!-- codes:end -->"


def with_table(doc: str) -> str:
    """`doc` with the text between the BEGIN and END markers replaced by the current table."""
    head, _, rest = doc.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{markdown_table()}{END}{tail}"


if __name__ == "__main__":  # python -m boardrules.diagnostics_codes docs/language.md: regenerate the table
    import sys
    from pathlib import Path

    for name in sys.argv[1:]:
        path = Path(name)
        path.write_text(with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
