"""The griffe extension of mkdocstrings (``mkdocs.yml``: ``extensions:``): the library's docstrings
in the API reference, as Markdown with their rule ids linked."""

from __future__ import annotations

import sys
from pathlib import Path

# MkDocs loads this file by its path: the folder above it, docs/, goes on sys.path so that the
# package's other modules import as ``_gen``
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _gen.markdown import rst_to_markdown  # noqa: E402
from _gen.rules import link_rule_ids  # noqa: E402


try:
    import griffe
except ImportError:  # the hook and the script work without griffe
    griffe = None

if griffe is not None:
    class RstDocstrings(griffe.Extension):
        """Docstrings as Markdown for mkdocstrings: reST converted (:func:`rst_to_markdown`),
        rule ids linked through autorefs, and ``#:`` comments above a module attribute (the
        library's way of documenting a constant) read as its docstring."""

        def __init__(self):
            super().__init__()
            self._lines: dict[str, list[str]] = {}
            self._done: set[int] = set()

        def _convert(self, o) -> None:
            if o.docstring is None or id(o.docstring) in self._done:
                return
            o.docstring.value = link_rule_ids(rst_to_markdown(o.docstring.value), "", autoref=True)
            self._done.add(id(o.docstring))

        def on_instance(self, *, node=None, obj=None, agent=None, **kwargs):  # noqa: ARG002
            if obj is not None:
                self._convert(obj)

        def on_attribute_instance(self, *, node=None, attr=None, agent=None, **kwargs):  # noqa: ARG002
            if attr is None or attr.docstring is not None or not attr.lineno or attr.filepath is None:
                return
            path = str(attr.filepath)
            if path not in self._lines:
                try:
                    self._lines[path] = Path(path).read_text(encoding="utf-8").splitlines()
                except OSError:
                    self._lines[path] = []
            lines = self._lines[path]
            k = attr.lineno - 2
            doc = []
            while 0 <= k < len(lines) and lines[k].lstrip().startswith("#:"):
                doc.insert(0, lines[k].lstrip()[2:].strip())
                k -= 1
            if doc:
                attr.docstring = griffe.Docstring("\n".join(doc), lineno=k + 2, parent=attr)
                self._convert(attr)
