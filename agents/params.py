"""Rule agents' parameters from text, ``"key=value,key=value"``, as agent names and
``NetConfig.expert_params`` carry them (``expert:lookahead=4``, ``planner:swap_margin=24``)."""

from __future__ import annotations

from dataclasses import fields

import numpy as np


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


def parse_fields(cls, text: str, signed: tuple[str, ...] = (), integers: dict | None = None):
    """``cls(**values)`` for the ``key=value`` items of ``text``; the fields not named keep
    their defaults. Every key must be a field of the dataclass ``cls`` and every value a
    finite number, at least 0 unless its field is in ``signed``; a field of ``integers``
    (name -> (low, high)) takes a whole number in that range. Anything else is an error that
    names the item and what is allowed."""
    names = [f.name for f in fields(cls)]
    integers = integers or {}
    out = {}
    for item in split_items(text):
        key, eq, value = (x.strip() for x in item.partition("="))
        if key in out:
            raise ValueError(f"expert parameter {key!r} is given twice in {text!r}")
        if not eq or key not in names:
            raise ValueError(f"expert parameter {item!r} is not KEY=VALUE with KEY one of {', '.join(names)}")
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if key in integers:
            low, high = integers[key]
            if not (np.isfinite(number) and number == int(number) and low <= number <= high):
                raise ValueError(f"expert parameter {key}={value!r} must be a whole number from {low} to {high}")
            out[key] = int(number)
            continue
        if not np.isfinite(number) or (key not in signed and number < 0):
            raise ValueError(f"expert parameter {key}={value!r} must be a finite number"
                             + ("" if key in signed else " >= 0"))
        out[key] = number
    return cls(**out)


def kernel_array(params, order: tuple[str, ...]) -> np.ndarray:
    """``params`` (a parameter dataclass) as the float64 array a compiled kernel reads, its
    values placed by *name* in ``order``, the kernel's own order: reordering the dataclass's
    fields never swaps the weights the kernel sees."""
    names = {f.name for f in fields(params)}
    if names != set(order):
        raise ValueError(f"{type(params).__name__} has fields {sorted(names)}; the kernel reads {sorted(order)}")
    return np.array([getattr(params, name) for name in order], np.float64)
