"""`wrap:` hooks a module puts before, after or instead of a rule (or a named step of one) of a required module.

Hooks compose in `requires` order: the first module's hooks sit closest to the rule, and each later module wraps
what the earlier ones made, so its `before` runs first and its `after` last. An `instead` hook replaces what it
wraps; `proceed` inside it runs that. Two modules that do not require each other may both put `before`/`after`
hooks on one target (they run in module order), but not when either of them uses `instead` (E407): which one
wraps the other would then change what happens.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..dataclass_code import dataclass
from ..diagnostics import Diagnostics, Span, did_you_mean
from ..engine import effects as e
from .sections import RULE_SECTIONS

if TYPE_CHECKING:
    from .compiler import Scope
    from .effect_builder import Builder

WRAPPABLE = RULE_SECTIONS
HOOK_KINDS = ("before", "instead", "after")


@dataclass
class Hook:
    module: str
    target: str  # section.rule or section.rule.step
    spec: Any  # the YAML mapping with before / instead / after
    span: Span


def collect(ordered: list[Any], closure: dict[str, set[str]], declared: dict[tuple[str, str], Any],
            diags: Diagnostics) -> dict[str, list[Hook]]:
    """Every module's `wrap:` entries by target, in requires order, with their targets and conflicts checked."""
    hooks: dict[str, list[Hook]] = {}
    for m in ordered:
        table = m.doc.get("wrap")
        if not isinstance(table, dict):
            continue
        for target, spec in table.items():
            target = str(target)
            span = getattr(table, "key_spans", {}).get(target, m.span)
            section, _, rest = target.partition(".")
            rule = rest.partition(".")[0]
            decl = declared.get((section, rule))
            if section not in WRAPPABLE or decl is None:
                known = [f"{sec}.{n}" for sec, n in declared if sec in WRAPPABLE]
                diags.error("E406", f"wrap target '{target}' does not exist", span, did_you_mean(target, known))
                continue
            if decl.module not in closure[m.id]:
                diags.error("E406", f"'{section}.{rule}' belongs to {decl.module}, which {m.id} does not require",
                            span, f"add {decl.module} to requires")
                continue
            if not isinstance(spec, dict) or not any(k in spec for k in HOOK_KINDS):
                diags.error("E201", "a wrap entry needs before, instead or after", span)
                continue
            clash = next((h for h in hooks.get(target, []) if h.module not in closure[m.id]
                          and m.id not in closure[h.module] and ("instead" in spec or "instead" in h.spec)),
                         None)
            if clash is not None:
                diags.error("E407", f"'{target}' is wrapped by both {clash.module} and {m.id}, and one of them "
                            "replaces it (instead)", span,
                            "make one module require the other, so the order is explicit")
                continue
            hooks.setdefault(target, []).append(Hook(m.id, target, spec, span))
    return hooks


def wrap_body(b: Builder, target: str, body: e.Body, scope: Scope) -> e.Body:
    """The body of `target` with every module's hooks around it, innermost first."""
    for hook in b.hooks.get(target, ()):
        b.hooks_used.add(target)
        b.hook_log.append(target)
        spans = getattr(hook.spec, "value_spans", {})

        def part(kind: str, hook: Hook = hook, spans: dict = spans) -> e.Body:
            return b.body(hook.spec.get(kind, []), spans.get(kind, hook.span), scope.child())

        instead = None
        instead_span = getattr(hook.spec, "key_spans", {}).get("instead")
        if "instead" in hook.spec:
            b.instead_depth += 1
            try:
                instead = part("instead")
            finally:
                b.instead_depth -= 1
        body = (e.WrapE(hook.span, target, hook.module, part("before"), instead, part("after"), body,
                         instead_span),)
    return body


def report_unused(b: Builder, diags: Diagnostics) -> None:
    """A step target that no rule's `step:` block carries."""
    for target, hooks in b.hooks.items():
        if target not in b.hooks_used:
            rule = ".".join(target.split(".")[:2])
            steps = [t.rsplit(".", 1)[1] for t in b.steps_seen if t.startswith(rule + ".")]
            step = target.rsplit(".", 1)[1]
            diags.error("E406", f"'{rule}' has no step '{step}'", hooks[0].span,
                        did_you_mean(step, steps) or "name a step with a block {step: NAME, do: [...]}")
