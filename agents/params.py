"""Rule agents' parameters from text, ``"key=value,key=value"``, as agent names and
``NetConfig.expert_params`` carry them (``expert:lookahead=4``, ``planner:swap_margin=24``)."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from rummyrl.settings import build


def split_items(text: str) -> list[str]:
    """The comma-separated items of ``text``, stripped and the empty ones dropped, where a
    comma inside parentheses does not split: ``"rollout=(expert:lookahead=4,w_gin=30),worlds=64"``
    -> ``["rollout=(expert:lookahead=4,w_gin=30)", "worlds=64"]``. Unbalanced parentheses
    are an error."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise ValueError(f"a ')' without its '(' at position {i} of {text!r}")
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    if depth:
        raise ValueError(f"a '(' without its ')' in {text!r}")
    items.append(text[start:])
    return [s for s in (x.strip() for x in items) if s]


def parse_fields(cls, text: str):
    """``cls`` (a settings class, :mod:`rummyrl.settings`) from the ``key=value`` items of
    ``text``; the fields not named keep their defaults, and each value is checked against its
    field's declared type and range. An item that is not ``key=value``, a key given twice, an
    unknown key or a bad value is an error naming it and what is allowed."""
    out = {}
    for item in split_items(text):
        key, eq, value = (x.strip() for x in item.partition("="))
        if not eq or not key:
            raise ValueError(f"{item!r} in {text!r} is not KEY=VALUE")
        if key in out:
            raise ValueError(f"{key!r} is given twice in {text!r}")
        for number in (int, float):
            try:
                out[key] = number(value)
                break
            except ValueError:
                out[key] = value
    return build(cls, out)


def kernel_array(params, order: tuple[str, ...]) -> np.ndarray:
    """``params`` (a parameter dataclass) as the float64 array a compiled kernel reads, its
    values placed by *name* in ``order``, the kernel's own order: reordering the dataclass's
    fields never swaps the weights the kernel sees."""
    names = {f.name for f in fields(params)}
    if names != set(order):
        raise ValueError(f"{type(params).__name__} has fields {sorted(names)}; the kernel reads {sorted(order)}")
    return np.array([getattr(params, name) for name in order], np.float64)
