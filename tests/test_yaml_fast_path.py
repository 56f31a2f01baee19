"""The loader builds plain scalars and collections inline (loader._Builder._drive): whatever the text, that
gives exactly what feeding every event to `_event` one by one gives: the same values, types, places, styles and
diagnostics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardrules.diagnostics import Diagnostics, Span
from boardrules.language import loader
from boardrules.language.loader import YList, YMap, YStr

ROOT = Path(__file__).resolve().parent.parent


class EventByEvent(loader._Builder):
    """The reference: every event through `_event`, as the loader did before the inline path."""

    def _drive(self) -> None:
        events = self.loader(self.text)
        try:
            while events.check_event():
                event = events.get_event()
                if isinstance(event, yaml.StreamEndEvent):
                    return
                self._event(event)
        finally:
            events.dispose()


def deep(value: Any) -> Any:
    """Everything the loader records about a value, as plain data to compare."""
    def span(s: Span) -> tuple:
        return (type(s).__name__, s.file, s.line, s.col, s.end_line, s.end_col, s.text)

    if isinstance(value, YMap):
        items = [(deep(k), span(value.key_spans[k]), deep(v), span(value.value_spans[k])) for k, v in value.items()]
        return ("map", type(value).__name__, span(value.span), items, sorted(value.key_spans),
                sorted(value.value_spans))
    if isinstance(value, YList):
        return ("list", span(value.span), [deep(v) for v in value], [span(s) for s in value.item_spans])
    if isinstance(value, YStr):
        return ("str", str(value), span(value.span), value.style)
    return (type(value).__name__, value)


def both(text: str, parser: type = loader._FAST_LOADER) -> None:
    fast, slow = Diagnostics(), Diagnostics()
    got = loader._Builder(text, "f.yaml", fast, parser).run()
    want = EventByEvent(text, "f.yaml", slow, parser).run()
    assert deep(got) == deep(want)
    assert fast.items == slow.items


@pytest.mark.slow
def test_every_yaml_file_in_the_repository_is_built_as_event_by_event() -> None:
    checked = 0
    # The repository's own folders: not a venv, nor the copy of the packs a wheel build leaves under build/.
    for path in sorted(p for d in ("rules", "tests", "examples", "benchmarks") for p in (ROOT / d).rglob("*.yaml")):
        text = path.read_bytes().decode("utf-8-sig", "replace")
        both(text)
        both(text, yaml.SafeLoader)
        checked += 1
    assert checked > 200


def test_the_inline_cases_and_their_neighbours() -> None:
    for text in ["a: 1\nb: -12\nc: 010\nd: 0x1f\ne: 1_000\nf: 1:30\ng: +5\nh: 123456789012345678\n",
                 "i: 1234567890123456789\nj: -0\nk: 00\nl: 1e3\nm: .5\nn: yes\no: ~\np: null\nq: 2024-01-01\n",
                 "coins {per: player}\n", "a b: 1\na b: 2\n", "a: 1\na: 2\n", "<<: {a: 1}\n", "=: x\n",
                 "x: 'caf\u00e9'\ny: \"\\ud800\"\n", "- a\n- 'b'\n- |\n  c\n- >\n  d\n- 1\n- [1, x]\n",
                 "? [a]\n: 1\n", "a: &x 1\nb: *x\n", "a: !!str 1\nb: !!int '2'\n", "k: v\n---\nk: w\n",
                 "a: [1, 2\n", "\t a: 1\n", "", "~\n", "1\n", "[a, {b: c, b: d}]\n"]:
        both(text)


def test_the_node_limit_is_reached_at_the_same_node() -> None:
    items = "".join(f"k{i}: v\n" for i in range(loader.MAX_NODES))
    both(items)
    both("- x\n" * (loader.MAX_NODES + 5))


WORDS = st.sampled_from(["a", "b", "a b", "on", "1", "-3", "07", "0x2", "1_0", "yes", "~", "'q'", '"\\u00e9"',
                         "x {y", "<<", "&n 1", "*n", "!!str 5", "caf\u00e9", '"\\ud800"', "1e2", "2024-01-01"])


@st.composite
def documents(draw: st.DrawFn, depth: int = 0) -> str:
    indent = "  " * depth
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 2 and draw(st.booleans()):
            lines.append(f"{indent}{draw(WORDS)}:\n{draw(documents(depth + 1))}")
        elif draw(st.booleans()):
            lines.append(f"{indent}- {draw(WORDS)}\n")
        else:
            lines.append(f"{indent}{draw(WORDS)}: {draw(WORDS)}\n")
    return "".join(lines)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_any_document_is_built_as_event_by_event(text: str) -> None:
    both(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=" \t\n:-{}[],&*!'\"#ab01x\u00e9", max_size=60))
def test_any_text_is_built_as_event_by_event(text: str) -> None:
    both(text)


@given(st.text(max_size=20) | st.sampled_from(["yes", "No", "~", "null", "0x1F", "-.inf", "1_000", "<<", "12:30"]),
       st.tuples(st.booleans(), st.booleans()))
def test_a_scalar_resolves_to_the_tag_pyyaml_gives_it(value: str, implicit: tuple[bool, bool]) -> None:
    from yaml.nodes import ScalarNode
    from yaml.resolver import Resolver

    assert loader._resolve(value, implicit) == Resolver().resolve(ScalarNode, value, implicit)
