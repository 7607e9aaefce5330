"""The generated parts of the documentation site: a MkDocs hook and a griffe extension.

``mkdocs.yml`` loads two files of this package: ``hooks.py`` as a *hook* (``hooks:``), whose
events fill the pages, and ``griffe_ext.py`` as a *griffe extension* of mkdocstrings
(``extensions:``), which turns the reST of the library's docstrings into Markdown for the API
reference. Each generator family has its module (``env_tables``, ``env_pages``, ``options``,
``training``, ``commands``, ``results``, ``notebooks``); ``generators`` names them. ``docs/README.md`` explains both.

Markers
    A page asks for a generated part with a line of its own (outside fenced code)::

        <!-- gen: NAME ARG ... -->

    and the hook replaces that line, at build time, with what ``GENERATORS[NAME](*ARGS)``
    returns (Markdown). Every table of spaces, observation layout, actions, rewards, config
    fields, agent options, TensorBoard keys and the results.json schema comes from the
    code this way, so it cannot drift from it. A generator that finds something it cannot
    describe (a config field without a docstring, a TensorBoard key without a meaning here)
    logs a warning, which fails ``mkdocs build --strict`` (and ``tests/docs/test_docs.py``).

Rule ids
    Every rule id of ``docs/rules.md`` (``G-6``, ``R-7``, ``C-4``, ...) in a page's prose, and
    in the docstrings of the API reference, becomes a link to its heading in the rule book.

Other events
    ``on_config`` lays out ``build/docs_api/rummyrl``, a tree of links that puts ``envs/`` and
    ``agents/`` where their import names say (``rummyrl.envs``, ``rummyrl.agents``), so
    griffe finds every module from source, and lists under "Research" any page of
    ``docs/research/`` that the nav of ``mkdocs.yml`` does not; ``on_files`` adds the notebooks of
    ``notebooks/`` (rendered by mkdocs-jupyter from their stored outputs, never executed)
    and ``docs/README.md`` as the page ``contributing-docs.md``.

Run as a script it prints one generated part, to look at it without a build::

    python scripts/docs_gen.py obs_table gin
    python scripts/docs_gen.py --list
"""
