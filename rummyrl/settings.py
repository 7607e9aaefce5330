"""One way to declare and check settings: typed dataclass fields with their ranges and choices,
validated by pydantic when the object is built, and every failure said in one line.

A settings class is a dataclass decorated with :func:`settings`; each field is declared once,
with its type, its range or choices and its docstring (the docs' field tables read all three)::

    @settings
    class EvalConfig:
        games: Int[Field(gt=0)] = 400
        \"\"\"Games per opponent at each periodic evaluation.\"\"\"
        unit: Literal["game", "hand"] = "game"

Building one with a bad value raises :class:`SettingsError` (a ``ValueError``) whose message
names the field, the value and what is allowed (``eval.games must be > 0, got 0``); an unknown
field is refused with the known ones. :data:`Int` takes whole floats (``1e6``) and numpy
integers and refuses ``true``; :data:`Float` takes any real number but a bool and refuses
infinities; neither takes a string (``rummyrl.training.overrides.yaml_value`` reads ``2e6`` as
a number).
Checks that need more than a field's own value (another field, the game registry) are the
class's ``__post_init__``, which runs after the fields are validated; a ``ValueError`` it
raises is reported the same way.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import typing
from typing import Annotated

import annotated_types
import pydantic
from pydantic import BeforeValidator, ConfigDict, Field, ValidationError
from pydantic.dataclasses import dataclass as _pydantic_dataclass

__all__ = ["Before", "Field", "Float", "Int", "SettingsError", "build", "describe", "settings"]

#: a function run on a field's value before its type is checked (a mapping laid over defaults)
Before = BeforeValidator


class SettingsError(ValueError):
    """A setting that names an unknown field or holds a bad value; the message is one line.
    ``template`` is the message with ``{where}`` for the field's dotted name, so that a
    nested settings object's error can name the field from the top (``eval.games``)."""

    def __init__(self, message: str, where: str = "", template: str | None = None):
        super().__init__(message)
        self.where, self.template = where, template

    def under(self, prefix: str) -> "SettingsError":
        """This error with ``prefix`` (``eval.``) before the field it names."""
        if self.template is None or self.where.startswith(prefix):  # named already
            return self
        where = prefix + self.where
        return SettingsError(self.template.format(where=where, parent=where.rpartition(".")[0]), where,
                             self.template)


def _whole(value):
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return int(value)  # a numpy integer
    return value


def _finite(value):
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, int, float)):
        value = float(value)  # a numpy number
    if isinstance(value, (int, float)) and not isinstance(value, bool) and not math.isfinite(value):
        raise ValueError("must be finite")
    return value


class _Typed:
    """``Int[Field(gt=0)]``: the number type with its range, as one annotation."""

    def __init__(self, base, before):
        self.base, self.before = base, before

    def __getitem__(self, field_info):
        return Annotated[self.base, BeforeValidator(self.before), field_info]


#: an integer setting (whole floats and numpy integers become ints; a bool is refused)
Int = _Typed(int, _whole)
#: a finite real setting (ints and numpy numbers become floats; a bool is refused)
Float = _Typed(float, _finite)


def settings(cls=None, *, frozen: bool = False, section: str = "", label: str = ""):
    """Make ``cls`` a settings dataclass: its fields are validated when it is built (strict
    types: a string is not a number, a number is not a bool), unknown fields are refused, and
    a failure is one :class:`SettingsError` line. ``section`` is the name the class always
    has in a config (``net``): its errors name ``net.hidden`` however it was built; ``label``
    starts its errors instead (``GinConfig: target must be ...``). ``dataclasses.fields``,
    ``replace`` and ``asdict`` work as on any dataclass."""

    def wrap(c):
        out = _pydantic_dataclass(c, frozen=frozen, config=ConfigDict(extra="forbid", strict=True,
                                                                      arbitrary_types_allowed=True))
        init = out.__init__

        def __init__(self, *args, **kwargs):
            try:
                init(self, *args, **kwargs)
            except ValidationError as e:
                err = explain(type(self), e)
                if label:
                    err = SettingsError(f"{label}: {err}")
                raise (err.under(section + ".") if section else err) from None

        out.__init__ = __init__
        out.__settings_label__ = label
        return out

    return wrap if cls is None else wrap(cls)


def build(cls, data: dict, prefix: str = ""):
    """``cls`` from a mapping of its fields (nested settings from nested mappings); an error
    names the field with ``prefix`` (``eval.``) before it."""
    label = getattr(cls, "__settings_label__", "")
    start = f"{label}: " if label else ""
    if not isinstance(data, dict):
        raise SettingsError(f"{start}{prefix.rstrip('.') or cls.__name__} must be a mapping of {cls.__name__} "
                            f"fields, got {data!r}")
    if any(not isinstance(k, str) for k in data):  # keys a keyword argument cannot carry: said here, all at once
        known = sorted(f.name for f in dataclasses.fields(cls))
        unknown = [prefix + k if isinstance(k, str) else k for k in data if k not in known]
        raise SettingsError(f"{start}unknown config key(s) {unknown}; known keys: {known}")
    data = dict(data)
    for name, info in getattr(cls, "__pydantic_fields__", {}).items():
        sub = _settings_class(info.annotation)
        if sub is not None and isinstance(data.get(name), dict):
            data[name] = build(sub, data[name], f"{prefix}{name}.")
    try:
        return cls(**data)
    except SettingsError as e:
        raise (e.under(prefix) if prefix else e) from None


def _settings_class(annotation):
    """The settings dataclass an annotation names (``X`` or ``X | None``), or None."""
    return next((a for a in (annotation, *typing.get_args(annotation))
                 if isinstance(a, type) and dataclasses.is_dataclass(a)), None)


def describe(metadata) -> str:
    """What a field's range allows, as the error messages and the docs say it: ``> 0``,
    ``>= 0``, ``in (0, 1]``, ``in 1..500`` (integers, both ends allowed)."""
    lo = hi = None
    for m in metadata:
        if isinstance(m, annotated_types.Gt):
            lo = ("(", m.gt)
        elif isinstance(m, annotated_types.Ge):
            lo = ("[", m.ge)
        elif isinstance(m, annotated_types.Lt):
            hi = (")", m.lt)
        elif isinstance(m, annotated_types.Le):
            hi = ("]", m.le)
    if lo and hi:
        if lo[0] == "[" and hi[0] == "]" and isinstance(lo[1], int) and isinstance(hi[1], int):
            return f"in {lo[1]}..{hi[1]}"
        return f"in {lo[0]}{lo[1]}, {hi[1]}{hi[0]}"
    if lo:
        return f"{'>' if lo[0] == '(' else '>='} {lo[1]}"
    if hi:
        return f"{'<' if hi[0] == ')' else '<='} {hi[1]}"
    return ""


def _field_info(cls, loc: tuple):
    """The pydantic FieldInfo of the field at ``loc`` (nested settings followed), or None."""
    info = None
    for part in loc:
        fields = getattr(cls, "__pydantic_fields__", None)
        if not fields or part not in fields:
            return None
        info = fields[part]
        cls = _settings_class(info.annotation)
    return info


#: how each kind of pydantic error is said
_SAID = {
    "int_type": "must be an integer", "int_from_float": "must be an integer", "int_parsing": "must be an integer",
    "float_type": "must be a number", "float_parsing": "must be a number", "finite_number": "must be finite",
    "bool_type": "must be true or false", "bool_parsing": "must be true or false",
    "string_type": "must be a string", "string_too_short": "must not be empty", "too_short": "must not be empty", "dict_type": "must be a mapping",
    "list_type": "must be a list",
    "dataclass_type": "must be a mapping of its fields", "dataclass_exact_type": "must be a mapping of its fields",
}


#: the errors of a number field
_NUMBER_KINDS = ("int_type", "int_from_float", "int_parsing", "float_type", "float_parsing", "finite_number",
                 "greater_than", "greater_than_equal", "less_than", "less_than_equal", "value_error")


def _optional(cls, loc: tuple) -> bool:
    """Whether the field at ``loc`` may be None."""
    info = _field_info(cls, loc)
    return info is not None and type(None) in typing.get_args(info.annotation)


def _metadata(annotation) -> list:
    """The constraints an ``Annotated`` type carries (``Int[Field(ge=0)]``'s ``Ge(0)``)."""
    out = []
    for a in typing.get_args(annotation)[1:] if typing.get_origin(annotation) is Annotated else ():
        out += list(getattr(a, "metadata", [])) + ([a] if isinstance(a, annotated_types.BaseMetadata) else [])
    return out


def _lit(text) -> str:
    """``text`` as literal text of a ``str.format`` template."""
    return str(text).replace("{", "{{").replace("}", "}}")


def explain(cls, error: ValidationError) -> SettingsError:
    """The first problem of ``error`` as one line: the field, what is allowed, the value."""
    e = error.errors(include_url=False)[0]
    loc = tuple(str(p) for p in e["loc"] if not isinstance(p, int))
    where, kind, value = ".".join(loc), e["type"], e.get("input")
    if kind in ("unexpected_keyword_argument", "extra_forbidden"):
        parent = cls
        for part in loc[:-1]:
            info = _field_info(parent, (part,))
            parent = (_settings_class(info.annotation) if info else None) or parent
        known = sorted(f.name for f in dataclasses.fields(parent))
        template = "unknown config key {where!r}; known keys" + (" of {parent}" if loc[:-1] else "") + f": {_lit(known)}"
    elif _optional(cls, loc) and kind in _NUMBER_KINDS:
        info = _field_info(cls, loc)
        base = next(a for a in typing.get_args(info.annotation) if a is not type(None))
        word = "an integer" if typing.get_origin(base) is Annotated and typing.get_args(base)[0] is int or base is int \
            else "a number"
        allowed = describe(info.metadata) or describe(_metadata(base))
        template = f"{{where}} must be None or {word}{' ' + _lit(allowed) if allowed else ''}, got {_lit(repr(value))}"
    elif kind in ("missing_argument", "missing"):
        template = "{where} is required"
    elif kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        info = _field_info(cls, loc)
        ctx = e.get("ctx", {})
        bounds = [annotated_types.Gt(ctx["gt"]) if "gt" in ctx else annotated_types.Ge(ctx["ge"]) if "ge" in ctx
                  else annotated_types.Lt(ctx["lt"]) if "lt" in ctx else annotated_types.Le(ctx["le"])]
        allowed = describe(info.metadata if info is not None and describe(info.metadata) else bounds)
        template = f"{{where}} must be {_lit(allowed)}, got {_lit(repr(value))}"
    elif kind == "literal_error":
        template = f"{{where}} must be one of {_lit(e['ctx']['expected'])}, got {_lit(repr(value))}"
    elif kind == "value_error":
        msg = str(e["ctx"]["error"]) if "ctx" in e else e["msg"]
        if msg.startswith("must "):
            template = f"{{where}} {_lit(msg)}, got {_lit(repr(value))}"
        else:
            return SettingsError(f"{where}: {msg}" if where else msg)
    elif kind in _SAID:
        template = f"{{where}} {_SAID[kind]}, got {_lit(repr(value))}"
    else:
        template = f"{{where}}: {_lit(e['msg'])}, got {_lit(repr(value))}"
    return SettingsError(template.format(where=where, parent=".".join(loc[:-1])), where, template)


assert pydantic.VERSION.startswith("2"), "rummyrl.settings needs pydantic 2"

