"""The MkDocs hook (``mkdocs.yml``: ``hooks:``): the source tree griffe reads, the research pages
missing from the nav, the notebooks and the contributing page as files, and every page's
generated parts and rule links."""

from __future__ import annotations

import json
import os
import posixpath
import re
import shutil
import sys
from pathlib import Path

# MkDocs loads this file by its path: the folder above it, docs/, goes on sys.path so that the
# package's other modules import as ``_gen``
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _gen.common import API_TREE, ROOT, log  # noqa: E402
from _gen.generators import expand_markers  # noqa: E402
from _gen.notebooks import notebooks, shown  # noqa: E402
from _gen.rules import link_rule_ids  # noqa: E402


def make_api_tree(dest: Path = API_TREE) -> Path:
    """``dest/rummyrl``: links to every entry of ``rummyrl/`` plus ``envs`` and ``agents``
    under their import names, so that griffe reads ``rummyrl.envs`` and ``rummyrl.agents``
    from source (pyproject.toml maps those folders; griffe follows only the top package)."""
    pkg = dest / "rummyrl"
    pkg.mkdir(parents=True, exist_ok=True)
    want = {p.name: p for p in (ROOT / "rummyrl").iterdir() if p.name != "__pycache__"}
    want["envs"] = ROOT / "envs"
    want["agents"] = ROOT / "agents"
    for entry in pkg.iterdir():
        if entry.name not in want or not entry.is_symlink() or Path(os.readlink(entry)) != Path(
                os.path.relpath(want[entry.name], pkg)):
            if entry.is_symlink() or entry.is_file():
                entry.unlink()
    for name, target in want.items():
        link = pkg / name
        if not link.is_symlink():
            tmp = pkg / f".{name}.{os.getpid()}"
            os.symlink(os.path.relpath(target, pkg), tmp)
            os.replace(tmp, link)
    return dest


try:
    from mkdocs.plugins import event_priority
except ImportError:  # run as a script without MkDocs: the events are not used
    def event_priority(_):
        return lambda f: f


def _nav_paths(items) -> set[str]:
    out = set()
    for item in items or []:
        values = item.values() if isinstance(item, dict) else [item]
        for v in values:
            out |= _nav_paths(v) if isinstance(v, list) else {v} if isinstance(v, str) else set()
    return out


def add_research_pages(nav: list, docs_dir: Path) -> list[str]:
    """Append to the nav's "Research" section every ``research/*.md`` it does not list yet
    (titled by the page's first heading), so that a new page of the research record is in
    the site without an edit of mkdocs.yml; returns the pages added."""
    section = next((item["Research"] for item in nav or [] if isinstance(item, dict) and "Research" in item), None)
    if section is None:
        return []
    listed = _nav_paths(nav)
    added = []
    for path in sorted((docs_dir / "research").glob("*.md")):
        rel = path.relative_to(docs_dir).as_posix()
        if rel in listed:
            continue
        m = re.search(r"^#\s+(.+)$", path.read_text(encoding="utf-8"), re.M)
        section.append({m.group(1).strip() if m else path.stem: rel})
        added.append(rel)
    return added


@event_priority(100)
def on_config(config):
    make_api_tree()
    for rel in add_research_pages(config["nav"], Path(config["docs_dir"])):
        log.info("docs_gen: %s is not in mkdocs.yml's nav: listed under Research", rel)
    return config


@event_priority(50)  # before mkdocs-jupyter's on_files, which claims the .ipynb pages
def on_files(files, config):
    from mkdocs.structure.files import File

    for nb in notebooks():
        # a File read from the repository's root, not File.generated: mkdocs-jupyter's wrapper
        # finds the source path of a real file only
        # the executed copy (outputs and figures included) where there is one, laid out as
        # notebooks/<name>.ipynb under build/ so that its page keeps the notebook's address
        staged = ROOT / "build" / "docs_notebooks" / "notebooks" / nb.name
        staged.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shown(nb), staged)
        files.append(File(f"notebooks/{nb.name}", src_dir=str(staged.parents[1]), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    readme = Path(config["docs_dir"]) / "README.md"
    if readme.is_file():
        files.append(File.generated(config, "contributing-docs.md", content=readme.read_text(encoding="utf-8")))
    return files


def on_page_content(html, page, config, files):
    """Under a notebook page's title: a link to its ``.ipynb`` (mkdocs-jupyter copies it beside
    the page) and, when the file holds no outputs, a word saying so."""
    src = page.file.src_uri
    if not src.endswith(".ipynb"):
        return html
    nb = ROOT / "notebooks" / posixpath.basename(src)
    code = [c for c in json.loads(shown(nb).read_text(encoding="utf-8")).get("cells", [])
            if c.get("cell_type") == "code"]
    stored = any(c.get("outputs") for c in code)
    note = "" if stored else (" The file is stored without outputs, so this page shows its code and text: "
                              "run it to see its tables and charts.")
    head = (f'<div class="admonition info"><p class="admonition-title">Notebook</p><p>'
            f'<a href="{posixpath.basename(src)}" download><code>notebooks/{nb.name}</code></a>: '
            f"download it and run it from the repository's root, in the project's <code>.venv</code>."
            f"{note}</p></div>")
    cut = html.find("</h1>")
    return html[:cut + 5] + head + html[cut + 5:] if cut >= 0 else head + html


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if src.endswith(".ipynb"):
        return markdown
    markdown = expand_markers(markdown, src)
    if src != "rules.md":
        href = posixpath.relpath("rules.md", posixpath.dirname(src) or ".")
        markdown = link_rule_ids(markdown, href)
    return markdown
