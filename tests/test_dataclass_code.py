"""The node classes' methods come from a generated table (dataclass_code.py): the table is current, each of its
functions is the code dataclasses would compile from the same text, and a class the table does not know is made
as dataclasses makes it."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
from types import CodeType

import pytest

from boardrules import dataclass_code, dataclass_table
from boardrules.dataclass_code import dataclass, key


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return dataclass_code.texts()


def test_the_table_holds_every_text_of_the_node_classes_and_nothing_else(texts: list[str]) -> None:
    assert set(dataclass_table.TABLE) == {key(t) for t in texts}, \
        "a node class changed: regenerate the table with `python -m boardrules.dataclass_code`"
    assert len(texts) > 500


def same_code(a: CodeType, b: CodeType) -> None:
    """Equal bytecode, names and constants; only where it was written (file, line, the wrapper's name) differs."""
    assert (a.co_code, a.co_names, a.co_varnames, a.co_argcount, a.co_kwonlyargcount, a.co_flags) == \
        (b.co_code, b.co_names, b.co_varnames, b.co_argcount, b.co_kwonlyargcount, b.co_flags)
    consts_a = [c for c in a.co_consts if not isinstance(c, CodeType)]
    consts_b = [c for c in b.co_consts if not isinstance(c, CodeType)]
    assert consts_a == consts_b
    inner_a = [c for c in a.co_consts if isinstance(c, CodeType)]
    inner_b = [c for c in b.co_consts if isinstance(c, CodeType)]
    assert len(inner_a) == len(inner_b)
    for x, y in zip(inner_a, inner_b, strict=True):
        assert x.co_name == y.co_name
        same_code(x, y)


def test_each_function_of_the_table_is_what_its_text_compiles_to(texts: list[str]) -> None:
    for text in texts:
        namespace: dict[str, object] = {}
        # What dataclasses does with it (its module has no `from __future__` import for exec to inherit).
        exec(compile(text, "<string>", "exec", dont_inherit=True), {}, namespace)
        fresh = namespace["__create_fn__"]
        assert isinstance(fresh, type(same_code))
        same_code(dataclass_table.TABLE[key(text)].__code__, fresh.__code__)


def test_a_class_the_table_does_not_know_is_made_as_dataclasses_makes_it() -> None:
    @dataclass(frozen=True, slots=True)
    class Odd:
        some_field_no_table_has: int
        other: str = "x"

    @dataclasses.dataclass(frozen=True, slots=True)
    class Plain:
        some_field_no_table_has: int
        other: str = "x"

    made, plain = Odd(1), Plain(1)
    assert repr(made).replace("Odd", "Plain") == repr(plain) and made == Odd(1, "x") and hash(made) == hash(Odd(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.other = "y"  # type: ignore[misc]
    assert Odd.__doc__ is not None and Odd.__doc__.replace("Odd", "Plain") == Plain.__doc__
    assert Odd.__init__.__annotations__ == Plain.__init__.__annotations__
    assert not hasattr(dataclasses, "exec")  # the table is consulted only while a class is made


def test_a_node_class_is_made_from_the_table() -> None:
    from boardrules.language import syntax as s

    name = s.Name((1, 2), "x")
    assert s.Name.__init__.__code__.co_filename == dataclass_table.__file__
    assert s.Name.__init__.__qualname__ == "Name.__init__"
    assert s.Name.__init__.__annotations__ == {"pos": "Pos", "id": "str", "return": None}
    assert repr(name) == "Name(pos=(1, 2), id='x')" and name == s.Name((1, 2), "x") and name != s.Name((1, 3), "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        name.id = "y"  # type: ignore[misc]


def test_the_table_holds_the_docstring_dataclasses_writes_for_each_class_without_one() -> None:
    written = dataclass_code.docs()
    assert written == dataclass_table.DOCS, \
        "a node class changed: regenerate the table with `python -m boardrules.dataclass_code`"
    assert len(written) > 100
    for name, doc in written.items():
        module, _, qualname = name.rpartition(".")
        cls = getattr(importlib.import_module(module), qualname)
        assert cls.__doc__ == doc == cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
