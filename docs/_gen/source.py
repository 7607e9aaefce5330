"""Reading the code: objects by dotted name, the docstrings of dataclass fields, values as
the docs write them."""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
from pathlib import Path

from _gen.common import ROOT
from _gen.markdown import rst_to_markdown


def obj(dotted: str):
    """``"rummyrl.gin.GinConfig"`` -> the object (module, class, function)."""
    try:
        return importlib.import_module(dotted)
    except ImportError:
        module, _, name = dotted.rpartition(".")
        return getattr(obj(module), name)


def source_file(o) -> str:
    """``rummyrl/gin.py``: the object's file relative to the repository."""
    path = Path(inspect.getsourcefile(o)).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


@functools.lru_cache(maxsize=None)
def _class_node(cls) -> tuple[ast.ClassDef, list[str]]:
    src = inspect.getsource(cls)
    lines = src.splitlines()
    tree = ast.parse(inspect.cleandoc("\n" + src) if src[:1].isspace() else src)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    return node, lines


def field_docs(cls) -> dict[str, dict]:
    """Per dataclass field of ``cls`` (its bases' first): ``type`` (the annotation as
    written), ``doc`` (the string literal under the field) and ``comment`` (a ``#`` comment
    on its line)."""
    out: dict[str, dict] = {}
    for base in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(base) or base is object:
            continue
        try:
            node, lines = _class_node(base)
        except (OSError, TypeError, StopIteration):
            continue
        body = node.body
        for k, stmt in enumerate(body):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                name = stmt.target.id
                doc = ""
                if k + 1 < len(body) and isinstance(body[k + 1], ast.Expr) and \
                        isinstance(getattr(body[k + 1], "value", None), ast.Constant) and \
                        isinstance(body[k + 1].value.value, str):
                    doc = inspect.cleandoc(body[k + 1].value.value)
                line = lines[stmt.lineno - 1] if stmt.lineno - 1 < len(lines) else ""
                comment = line.split("  # ", 1)[1].strip() if "  # " in line else ""
                out[name] = {"type": ast.unparse(stmt.annotation), "doc": doc, "comment": comment}
    return out


def _default(f: dataclasses.Field):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def fmt_value(v, style: str = "python") -> str:
    """A default as a reader types it: Python (``None``, ``True``, ``"gin"``) or YAML
    (``null``, ``true``, ``gin``) for the training config."""
    if style == "yaml":
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '""' if v == "" else v
        if isinstance(v, list):
            return "[" + ", ".join(fmt_value(x, style) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k}: {fmt_value(x, style)}" for k, x in v.items()) + "}"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) >= 1e5 else repr(v)
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)


def one_line(text: str) -> str:
    """A docstring as one table cell: reST converted, lines joined."""
    md = rst_to_markdown(text)
    return " ".join(part.strip() for part in md.split("\n") if part.strip())
