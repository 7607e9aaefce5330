"""rummyrl.settings, the one way settings are declared and checked: for every settings class of
the project, each declared bound is enforced exactly at its edge with one line naming the
field, the value and what is allowed; choices and types likewise; unknown keys name the
known ones; nested sections name the field from the top."""

from __future__ import annotations

import dataclasses
import math
import re
import typing

import annotated_types
import numpy as np
import pytest

from rummyrl import gin, rummy
from rummyrl.agents.gin_expert import ExpertParams
from rummyrl.agents.network import NetConfig
from rummyrl.agents.rummy_expert import RummyExpertParams
from rummyrl.settings import Field, Float, Int, SettingsError, build, describe, settings
from rummyrl.training.compress import CompressConfig
from rummyrl.training.config import EvalConfig, ExitConfig, OpponentConfig, TrainConfig
from rummyrl.training.recipe import EvaluateStage, FitStage

CLASSES = [gin.GinConfig, rummy.RummyConfig, NetConfig, TrainConfig, EvalConfig, ExitConfig, OpponentConfig,
           CompressConfig, FitStage, EvaluateStage, ExpertParams, RummyExpertParams]
#: required fields of the classes that have them
REQUIRED = {FitStage: {"records": "a"}, EvaluateStage: {"checkpoint": "a"}}


def bounded_fields():
    """(class, field, bound kind, bound) for every declared bound of every settings class."""
    for cls in CLASSES:
        for name, info in cls.__pydantic_fields__.items():
            for m in info.metadata:
                for kind in ("gt", "ge", "lt", "le"):
                    if isinstance(m, getattr(annotated_types, kind.capitalize())):
                        yield pytest.param(cls, name, kind, getattr(m, kind), id=f"{cls.__name__}.{name}.{kind}")


def is_int(cls, name) -> bool:
    ann = cls.__pydantic_fields__[name].annotation
    return ann is int or int in typing.get_args(ann)


@pytest.mark.parametrize("cls, name, kind, bound", list(bounded_fields()))
def test_every_declared_bound_holds_at_its_edge_with_a_one_line_error(cls, name, kind, bound):
    """Just outside the bound: refused, naming the field, the value and the allowed range as
    describe() says it; on the bound (where allowed) or just inside: accepted, unless a check
    between fields refuses that value, which must then name the field too."""
    step = 1 if is_int(cls, name) else 1e-6 * max(1.0, abs(bound))
    if kind == "gt":
        outside, inside = bound, bound + step
    elif kind == "ge":
        outside, inside = bound - step, bound
    elif kind == "lt":
        outside, inside = bound, bound - step
    else:
        outside, inside = bound + step, bound
    base = dict(REQUIRED.get(cls, {}))
    with pytest.raises(SettingsError) as e:
        build(cls, {**base, name: outside})
    msg = str(e.value)
    allowed = describe(cls.__pydantic_fields__[name].metadata)
    assert "\n" not in msg and f"{name} must be {allowed}, got {outside!r}" in msg, msg
    try:
        got = build(cls, {**base, name: inside})
    except SettingsError as e:  # a check between fields (a Rummy hand size for 4 players, say)
        assert name in str(e), str(e)
    else:
        assert getattr(got, name) == inside


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_defaults_build_and_unknown_keys_name_the_known_ones(cls):
    base = REQUIRED.get(cls, {})
    assert build(cls, dict(base)) == build(cls, dict(base))
    with pytest.raises(SettingsError) as e:
        build(cls, {**base, "no_such_field": 1})
    msg = str(e.value)
    assert re.search(r"unknown config key '(\w+\.)?no_such_field'", msg) and "\n" not in msg, msg  # a section names itself
    assert all(repr(f.name) in msg for f in dataclasses.fields(cls)), msg


@settings(section="demo")
class Demo:
    n: Int[Field(ge=1, le=5)] = 2
    """A small integer."""
    x: Float[Field(gt=0, le=1)] = 0.5
    """A share."""
    flag: bool = False
    """A switch."""
    kind: typing.Literal["a", "b"] = "a"
    """A choice."""
    maybe: Int[Field(ge=0)] | None = None
    """Off, or a count."""
    names: list[str] = dataclasses.field(default_factory=list)
    """Some names."""


@settings
class Outer:
    demo: Demo = dataclasses.field(default_factory=Demo)
    """A section."""

    def __post_init__(self):
        if self.demo.flag and self.demo.n > 3:
            raise ValueError("demo.flag: true needs demo.n <= 3")


@pytest.mark.parametrize("value, message", [
    ({"n": 0}, "demo.n must be in 1..5, got 0"),
    ({"n": 2.5}, "demo.n must be an integer, got 2.5"),
    ({"n": True}, "demo.n must be an integer, got True"),
    ({"n": "3"}, "demo.n must be an integer, got '3'"),
    ({"x": 0}, "demo.x must be in (0, 1], got 0"),
    ({"x": math.inf}, "demo.x must be finite, got inf"),
    ({"x": math.nan}, "demo.x must be finite, got nan"),
    ({"x": False}, "demo.x must be a number, got False"),
    ({"flag": 1}, "demo.flag must be true or false, got 1"),
    ({"kind": "c"}, "demo.kind must be one of 'a' or 'b', got 'c'"),
    ({"maybe": -1}, "demo.maybe must be None or an integer >= 0, got -1"),
    ({"names": "x"}, "demo.names must be a list, got 'x'"),
    ({"nope": 1}, "unknown config key 'demo.nope'"),
])
def test_each_kind_of_error_is_said_in_one_line_from_the_top(value, message):
    with pytest.raises(SettingsError) as e:
        build(Outer, {"demo": value})
    assert str(e.value).startswith(message) and "\n" not in str(e.value), str(e.value)


def test_numbers_as_config_files_and_numpy_give_them():
    d = build(Outer, {"demo": {"n": 4.0, "x": np.float32(0.25), "maybe": np.int64(7)}}).demo
    assert (d.n, d.x, d.maybe) == (4, 0.25, 7) and type(d.n) is int and type(d.maybe) is int
    assert dataclasses.replace(d, n=3).n == 3
    with pytest.raises(SettingsError, match="demo.n must be in 1..5, got 9"):
        dataclasses.replace(d, n=9)
    with pytest.raises(SettingsError, match=r"^demo.flag: true needs demo.n <= 3$"):
        build(Outer, {"demo": {"flag": True, "n": 4}})
    with pytest.raises(SettingsError, match=r"unknown config key\(s\) \[3\]"):
        build(Outer, {3: 1})
