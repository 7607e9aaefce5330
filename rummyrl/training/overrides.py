"""Settings as files and command lines: YAML read as config files are written, ``key=value``
overrides laid over it (dotted keys reach nested mappings), and a saved settings object
turned back into overrides. The config and the recipes read their files and overrides here;
:mod:`rummyrl.settings` then builds and checks the settings objects.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from rummyrl.settings import SettingsError


class _Loader(yaml.SafeLoader):
    """YAML as settings files are written: ``2e6`` is a number (YAML 1.1 reads it as a string)."""


_Loader.add_implicit_resolver("tag:yaml.org,2002:float", re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$"),
                              list("-+0123456789"))


def yaml_value(text: str):
    """A settings file's text, or an override's value, as YAML reads it (:class:`_Loader`)."""
    return yaml.load(text, Loader=_Loader)


def one_line(error: Exception) -> str:
    """A YAML parser's error, which spans lines (the problem, then where), as one line."""
    return " ".join(str(error).split())


def read_yaml(path: str | Path, what: str = "config file") -> dict:
    """The mapping a YAML settings file holds; :class:`SettingsError` names the file when it is
    missing, not YAML or not a mapping (an empty file is an empty mapping)."""
    p = Path(path)
    if not p.is_file():
        raise SettingsError(f"{what} {str(p)!r} does not exist")
    try:
        data = yaml_value(p.read_text()) or {}
    except yaml.YAMLError as e:
        raise SettingsError(f"{what} {str(p)!r} is not valid YAML: {one_line(e)}") from None
    if not isinstance(data, dict):
        raise SettingsError(f"{what} {str(p)!r} must hold a mapping of keys, not {type(data).__name__}")
    return data


def with_overrides(data: dict, overrides) -> dict:
    """``data`` with each ``key=value`` override laid over it, in order (changed in place and
    returned). A dotted key reaches a nested mapping (``net.hidden=128``); a mapping value
    changes the keys it names and keeps the others, as dotted keys do (``opponents={a: 1}``)."""
    for item in overrides:
        key, eq, text = item.partition("=")
        if not eq:
            raise SettingsError(f"override {item!r} must be key=value")
        *parents, last = key.strip().split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise SettingsError(f"override {item!r}: {part!r} is not a section")
        try:
            value = yaml_value(text)
        except yaml.YAMLError as e:
            raise SettingsError(f"override {item!r}: cannot parse the value: {one_line(e)}") from None
        if isinstance(value, dict) and isinstance(node.get(last), dict):
            value = {**node[last], **value}
        node[last] = value
    return data


def to_overrides(d: dict, prefix: str = "", whole: tuple = ()) -> list[str]:
    """``d`` (``dataclasses.asdict`` of a settings object) as ``key=value`` overrides that
    :func:`with_overrides` turns back into the same data; the mappings named in ``whole`` are
    one override each (their keys may hold ``.`` or ``=``)."""
    out = []
    for k, v in d.items():
        if isinstance(v, dict) and k not in whole:
            out += to_overrides(v, prefix + k + ".", whole)
        else:
            out.append(f"{prefix}{k}={yaml.safe_dump(v, default_flow_style=True).strip().removesuffix('...').strip()}")
    return out
