"""Rule ids as links: every ``G-6``, ``R-7``, ``C-4`` of a page or a docstring becomes a link to
its heading in docs/rules.md."""

from __future__ import annotations

import functools
import re

from _gen.common import FENCE_RE, ROOT, RULE_HEAD_RE, RULE_ID_RE


@functools.lru_cache(maxsize=None)
def rule_anchors() -> dict[str, str]:
    """Rule id -> the anchor MkDocs gives its heading in docs/rules.md (toc's slugify)."""
    from markdown.extensions.toc import slugify

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    out = {}
    for m in RULE_HEAD_RE.finditer(text):
        out[m.group(1)] = slugify(m.group(0)[4:].strip(), "-")
    return out


#: spans of a Markdown line that must stay as they are: code, links, images, HTML
PROTECT_RE = re.compile(r"(`+).+?\1|!?\[[^\]]*\]\([^)]*\)|!?\[[^\]]*\]\[[^\]]*\]|<[^>]+>")


def link_rule_ids(markdown: str, rules_href: str, autoref: bool = False) -> str:
    """Each rule id in prose as a link to its heading: ``[G-6](rules_href#g-6-knock)``
    (``autoref``: ``[G-6][g-6-knock]``, which mkdocs-autorefs resolves on any page)."""
    anchors = rule_anchors()

    def link(m: re.Match) -> str:
        rid = m.group(1)
        if rid not in anchors:
            return rid
        return f"[{rid}][{anchors[rid]}]" if autoref else f"[{rid}]({rules_href}#{anchors[rid]})"

    out, in_fence, in_comment = [], False, False
    for line in markdown.split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            out.append(line)
            continue
        if in_comment or "<!--" in line:
            in_comment = ("<!--" in line and "-->" not in line.split("<!--")[-1]) or (in_comment and "-->" not in line)
            out.append(line)
            continue
        if in_fence or line.lstrip().startswith(("#", ":::")):
            out.append(line)
            continue
        pieces, last = [], 0
        for m in PROTECT_RE.finditer(line):
            pieces.append(RULE_ID_RE.sub(link, line[last:m.start()]))
            pieces.append(m.group(0))
            last = m.end()
        pieces.append(RULE_ID_RE.sub(link, line[last:]))
        out.append("".join(pieces))
    return "\n".join(out)
