"""Recipes: the stages that made a network, chained into one command that can be stopped and
run again.

    python train.py --config configs/recipes/gin_pretrained.yaml          # agents/pretrained/gin.pt, again
    python train.py --config configs/recipes/rummy_pretrained.yaml        # agents/pretrained/rummy.pt
    python train.py --config configs/recipes/gin_pretrained.yaml --until fit     # stop after the fit
    python train.py --config configs/recipes/gin_pretrained.yaml ppo.time_limit_minutes=10 eval.games=500

A recipe is a YAML file: ``recipe`` (its name: the run folder is ``runs/<recipe>/``, or
``--run-dir``) and ``stages``, a mapping from each stage's name to what it does, run in the
file's order. Every stage writes into its own folder of the run folder,
``<run folder>/<stage>/``, and a later stage names an earlier one's product by the stage's
name (``init: fit``) or a file in its folder (``checkpoint: ppo/best.pt``). What a stage
does (``do``):

* ``train``: a train.py run (:func:`~.loop.train`, then its final report) of the config file
  ``config`` with the values of ``set`` over it (nested as in a config file) and, with
  ``init``, the network of an earlier stage (or a checkpoint path) to start from. Done when
  its ``final.pt`` is there (and, with a final report, ``eval/results.json``).
* ``fit``: an offline fit (:func:`~.offline.fit_to_file`) of the search records that an
  earlier ``train`` stage saved (``records``), with that stage's config and ``set`` over it;
  writes ``fit.pt``, done when its epochs' metrics, ``fit.pt.json``, are there.
* ``evaluate``: evaluate.py's tournament of a ``checkpoint`` against the agents of
  ``against`` (every pair plays, as in evaluate.py); writes ``results.json`` and
  ``results.png``, done when ``results.json`` is there.
* ``compress``: the network of ``teacher`` (an earlier stage, a file in one, or a checkpoint)
  distilled into a faster architecture, ``net`` over the teacher's
  (:func:`~.compress.compress_to_file`; the other fields are :class:`~.compress.CompressConfig`'s);
  writes ``student.pt``, done when its epochs' metrics, ``student.pt.json``, are there.
* ``export``: the network of ``checkpoint`` alone, with the pairings of the ``results`` of
  earlier ``evaluate`` stages (:func:`~.export.export_pretrained`); writes ``<game>.pt``
  into the stage's folder (``out``: elsewhere), done when it is there.

Run again, a recipe skips the stages whose product is there and goes on at the first that is
not; a ``train`` stage that was stopped (Ctrl-C, or killed) resumes from its own ``last.pt``,
and one stopped before its first checkpoint starts again. (Records saved after that
checkpoint, by updates the resumed run makes again, are moved aside to
``records_after_checkpoint/``: the fit reads the run's data once.) A fit or an evaluation
stopped midway starts again; each takes minutes. To redo a stage, delete its folder; the
stages after it that are done stay done.

Command-line overrides name their stage: ``data.time_limit_minutes=5`` sets a config value
of the ``train`` stage ``data``; ``fit.epochs=2`` a field of the ``fit`` stage (any other
key of a fit is a config value, ``fit.learning_rate=3e-4``); ``eval.games=500`` and
``eval.options.max_hands=20`` fields of an ``evaluate`` stage; ``compress.net.hidden=64`` a
field of a ``compress`` stage.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import sys
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from rummyrl import report, tournament
from rummyrl.agents.checkpoint import build_net, load_checkpoint
from rummyrl.settings import Field, Float, Int, build, settings

from .commands import command_line
from .compress import CompressConfig, compress_to_file
from .compress import describe_kept as describe_student
from .config import ConfigError, TrainConfig, load_config, to_overrides
from .evaluation import report_run
from .export import export_pretrained
from .loop import train
from .overrides import one_line, read_yaml, yaml_value
from .offline import SELECT, describe_kept, fit_to_file, rows_path


@settings
class TrainStage:
    """A train.py run."""

    config: str
    """The config file it starts from (``configs/gin_rummy.yaml``)."""
    set: dict = field(default_factory=dict)
    """Config values over it, nested as in a config file (``{exit: {learn: false}}``)."""
    init: str = ""
    """The network it starts from: an earlier stage (a ``fit``'s ``fit.pt``, a ``train``'s
    ``final.pt``), a file in an earlier stage's folder (``ppo/best.pt``) or a checkpoint path."""
    report: bool = True
    """Play the final report after training (``eval.final_games`` games per opponent, beside
    the network of step 0), as train.py does."""


@settings
class FitStage:
    """An offline fit of a train stage's saved search records (``scripts/exit_fit.py``)."""

    records: str
    """The ``train`` stage whose ``records/`` (``exit.save_records: true``) it fits."""
    set: dict = field(default_factory=dict)
    """Config values over that stage's config (the fit's ``learning_rate``, ``minibatch_size``)."""
    epochs: Int[Field(ge=1)] = 8
    """Passes over the training records."""
    select: Literal[tuple(SELECT)] = "loss"
    """The epoch kept: ``loss`` (the lowest validation loss) or ``q_gain`` (the highest)."""
    valid_every: Int[Field(ge=2)] = 10
    """One records file in this many is held out for validation."""
    first: Int[Field(ge=0)] = 0
    """Fit the first this many records files only (0: all)."""
    min_gain: Float[Field(ge=0)] = 0.0
    """Teach search's departures only where its values put them this many points above the
    network's choice (0: all of them)."""
    init: str = ""
    """A network to start from instead of a fresh one (as ``train``'s ``init``)."""


@settings
class EvaluateStage:
    """evaluate.py's tournament."""

    checkpoint: str
    """The network: a file in an earlier stage's folder (``ppo/best.pt``), a stage, or a path."""
    against: list[str] = field(default_factory=lambda: ["simple", "expert"])
    """The other agents (names or checkpoints); every pair plays, as in evaluate.py."""
    games: Int[Field(ge=1)] = 2000
    """Games per pairing."""
    seed: Int[Field()] = 0
    """evaluate.py's ``--seed`` (20011: the deals of the research record's tables)."""
    unit: Literal["game", "hand"] = "game"
    """``game`` (to the target) or ``hand``."""
    players: Int[Field(ge=0)] = 0
    """Players per game (0: the checkpoint's)."""
    options: dict = field(default_factory=dict)
    """Rule options, evaluate.py's ``--option`` (``{max_hands: 30}``)."""
    duplicate: bool = True
    """Duplicate deals (evaluate.py's default)."""


@settings
class ExportStage:
    """The network of a checkpoint alone (``scripts/export_pretrained.py``)."""

    checkpoint: str
    """The network: a file in an earlier stage's folder (``ppo/best.pt``), a stage, or a path."""
    results: list[str] = field(default_factory=list)
    """``evaluate`` stages whose pairings of the network the file keeps."""
    out: str = ""
    """Where to write (default ``<game>.pt`` in the stage's folder); ``agents/pretrained/<game>.pt``
    replaces the shipped network."""


@settings
class CompressStage(CompressConfig):
    """A network distilled into a faster architecture (:mod:`.compress`): the fields of
    :class:`~.compress.CompressConfig`, and the teacher."""

    teacher: str = ""
    """The network distilled: a file in an earlier stage's folder (``ppo/best.pt``), a stage,
    or a path."""

    def config(self) -> CompressConfig:
        return CompressConfig(**{f.name: getattr(self, f.name) for f in dataclasses.fields(CompressConfig)})


KINDS = {"train": TrainStage, "fit": FitStage, "evaluate": EvaluateStage, "compress": CompressStage,
         "export": ExportStage}
#: what each kind of stage names as its product when a later stage names the stage alone
PRODUCT = {"train": "final.pt", "fit": "fit.pt", "evaluate": "results.json", "compress": "student.pt"}


@dataclass
class Stage:
    name: str
    do: str
    spec: typing.Any
    """The stage's :data:`KINDS` dataclass."""
    overrides: list = field(default_factory=list)
    """Command-line config overrides (``train`` and ``fit`` stages), ``key=value``."""


@dataclass
class Recipe:
    name: str
    path: Path
    stages: dict
    """Stage name -> :class:`Stage`, in the file's order."""
    run_dir: Path

    def folder(self, stage: str) -> Path:
        return self.run_dir / stage

    def resolve(self, ref: str, before: str) -> Path:
        """The file a stage names (``fit``, ``ppo/best.pt`` or a path), for stage ``before``:
        a stage named must come earlier in the recipe."""
        head, _, rest = ref.partition("/")
        if head not in self.stages:
            return Path(ref)
        names = list(self.stages)
        if names.index(head) >= names.index(before):
            raise ConfigError(f"recipe {self.name}: stage {before!r} names stage {head!r}, which does not come "
                              f"before it (stages in order: {', '.join(names)})")
        if rest:
            return self.folder(head) / rest
        target = self.stages[head]
        if target.do == "export":
            return export_path(self, target)
        return self.folder(head) / PRODUCT[target.do]

    def train_config(self, stage: str) -> TrainConfig:
        """The config of a ``train`` or ``fit`` stage (a fit's: its records stage's, its ``set`` over it)."""
        path, overrides = self._config_parts(stage)
        return load_config(path, overrides)

    def _config_parts(self, stage: str) -> tuple[str, list[str]]:
        s = self.stages[stage]
        if s.do == "fit":
            path, base = self._config_parts(s.spec.records)
            return path, [o for o in base if not o.startswith("init=")] + to_overrides(s.spec.set) + s.overrides
        init = [f"init={self.resolve(s.spec.init, stage)}"] if s.spec.init else []
        return str(self.config_file(s.spec.config)), [f"name={self.name}_{stage}", *to_overrides(s.spec.set), *init,
                                                      *s.overrides]

    def config_file(self, path: str) -> Path:
        """A stage's config file: relative to the current folder, like train.py's ``--config``,
        else to the repository the recipe lies in (``configs/recipes/`` two folders down)."""
        p = Path(path)
        if p.is_absolute() or p.exists():
            return p
        for root in self.path.resolve().parents[:3]:
            if (root / p).is_file():
                return root / p
        return p


def is_recipe(path: str | Path) -> bool:
    """Whether the YAML file at ``path`` is a recipe (a mapping with ``stages``) rather than a config."""
    try:
        data = yaml_value(Path(path).read_text())
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and "stages" in data


def load_recipe(path: str | Path, overrides: list[str] = (), run_dir: str | Path | None = None) -> Recipe:
    """A :class:`Recipe` from its file and ``stage.key=value`` overrides, every stage checked
    (its fields, its config, the stages it names); :class:`ConfigError` names what is wrong."""
    path = Path(path)
    data = read_yaml(path, "recipe")
    if set(data) - {"recipe", "stages"} or not isinstance(data.get("stages"), dict) or not data["stages"]:
        raise ConfigError(f"recipe {str(path)!r} must be a mapping of 'recipe' (its name) and 'stages' (stage name -> "
                          f"stage); got keys {sorted(data)}")
    name = str(data.get("recipe") or path.stem)
    stages = {}
    for sname, raw in data["stages"].items():
        if not re.fullmatch(r"[A-Za-z0-9_-]+", str(sname)):
            raise ConfigError(f"recipe {name}: stage name {sname!r} must be letters, digits, '_' or '-' (it names "
                              f"the stage's folder)")
        if not isinstance(raw, dict) or raw.get("do") not in KINDS:
            raise ConfigError(f"recipe {name}: stage {sname!r} must be a mapping with 'do' one of {list(KINDS)}, "
                              f"got {raw!r}")
        stages[str(sname)] = Stage(str(sname), raw["do"], _spec(name, sname, raw["do"],
                                                             {k: v for k, v in raw.items() if k != "do"}))
    recipe = Recipe(name, path, stages, Path(run_dir) if run_dir else Path("runs") / name)
    for item in overrides:
        _override(recipe, item)
    for s in recipe.stages.values():
        _check_stage(recipe, s)
    return recipe


def _spec(recipe: str, stage: str, do: str, raw: dict):
    """The stage's :data:`KINDS` settings from its mapping; an error names the recipe and the stage."""
    try:
        return build(KINDS[do], raw)
    except ConfigError as e:
        raise ConfigError(f"recipe {recipe}: stage {stage!r} ({do}): {e}") from None


def _override(recipe: Recipe, item: str) -> None:
    """Apply one command-line ``stage.key=value``."""
    if "=" not in item or "." not in item.split("=", 1)[0]:
        raise ConfigError(f"override {item!r}: with a recipe an override names its stage, STAGE.KEY=VALUE "
                          f"(e.g. {next(iter(recipe.stages))}.seed=1); stages: {', '.join(recipe.stages)}")
    key, text = item.split("=", 1)
    sname, key = key.split(".", 1)
    if sname not in recipe.stages:
        raise ConfigError(f"override {item!r}: recipe {recipe.name} has no stage {sname!r}; "
                          f"stages: {', '.join(recipe.stages)}")
    s = recipe.stages[sname]
    top = key.split(".", 1)[0]
    fields = {f.name for f in dataclasses.fields(s.spec)}
    if s.do == "train" or (s.do == "fit" and top not in fields):
        s.overrides.append(f"{key}={text}")
        return
    if top not in fields:
        raise ConfigError(f"override {item!r}: a {s.do} stage has no field {top!r}; fields: {sorted(fields)}")
    try:
        value = yaml_value(text)
    except yaml.YAMLError as e:
        raise ConfigError(f"override {item!r}: cannot parse {text!r}: {one_line(e)}") from None
    raw = dataclasses.asdict(s.spec)
    if "." in key:  # into a mapping field: eval.options.max_hands=20
        if not isinstance(raw[top], dict):
            raise ConfigError(f"override {item!r}: {top} is not a mapping")
        raw[top] = {**raw[top], key.split(".", 1)[1]: value}
    else:
        raw[top] = value
    s.spec = _spec(recipe.name, sname, s.do, raw)


def _check_stage(recipe: Recipe, s: Stage) -> None:
    spec = s.spec
    if s.do == "train":
        recipe.train_config(s.name)
    elif s.do == "fit":
        if spec.records not in recipe.stages or recipe.stages[spec.records].do != "train":
            raise ConfigError(f"recipe {recipe.name}: fit {s.name!r}: records must name an earlier train stage, "
                              f"got {spec.records!r}")
        recipe.resolve(spec.records, s.name)
        if not recipe.train_config(spec.records).exit.save_records:
            raise ConfigError(f"recipe {recipe.name}: fit {s.name!r}: stage {spec.records!r} saves no records "
                              f"(set exit.save_records: true there)")
        if spec.init:
            recipe.resolve(spec.init, s.name)
        recipe.train_config(s.name)
    elif s.do == "evaluate":
        recipe.resolve(spec.checkpoint, s.name)
        for a in spec.against:
            recipe.resolve(str(a), s.name)
    elif s.do == "compress":
        if not spec.teacher:
            raise ConfigError(f"recipe {recipe.name}: compress {s.name!r} needs a teacher (a stage, a file in one's "
                              f"folder, or a checkpoint)")
        recipe.resolve(spec.teacher, s.name)
        head = spec.teacher.split("/", 1)[0]
        made_by = recipe.stages.get(head)
        net = recipe.train_config(head).net if made_by is not None and made_by.do in ("train", "fit") else None
        try:
            spec.config().check(recipe.train_config(head).game if net is not None else None, net)
        except ValueError as e:
            raise ConfigError(f"recipe {recipe.name}: compress {s.name!r}: {e}") from None
    else:
        recipe.resolve(spec.checkpoint, s.name)
        for r in spec.results:
            if r not in recipe.stages or recipe.stages[r].do != "evaluate":
                raise ConfigError(f"recipe {recipe.name}: export {s.name!r}: results must name evaluate stages, "
                                  f"got {r!r}")
            recipe.resolve(r, s.name)


def export_path(recipe: Recipe, s: Stage) -> Path:
    """Where an export stage writes: ``out``, else ``<game>.pt`` in its folder."""
    if s.spec.out:
        return Path(s.spec.out)
    return recipe.folder(s.name) / f"{_game_of(recipe, s.spec.checkpoint, s.name)}.pt"


def _game_of(recipe: Recipe, ref: str, before: str) -> str:
    """The game of the network a stage names, from the config of the stage that makes it."""
    head = ref.split("/", 1)[0]
    if head in recipe.stages and recipe.stages[head].do in ("train", "fit"):
        return recipe.train_config(head).game
    if head in recipe.stages and recipe.stages[head].do == "compress":  # the teacher's game
        return _game_of(recipe, recipe.stages[head].spec.teacher, head)
    return load_checkpoint(recipe.resolve(ref, before))["game"]


class Stopped(Exception):
    """A stage was stopped (Ctrl-C); the recipe continues where it stopped when run again."""


def run_recipe(recipe: Recipe, until: str | None = None, progress: bool = True, log=None) -> dict:
    """Run the stages of ``recipe`` in order, up to and including ``until`` (default: all),
    skipping those whose product is there. Returns stage name -> what happened: ``done``
    (skipped, its product was there), ``ran``, ``resumed`` (a train stage from its
    ``last.pt``), ``reported`` (a finished train stage whose final report was missing).
    Raises :class:`Stopped` when a train stage was stopped with Ctrl-C."""
    log = log or (lambda msg: print(msg, file=sys.stderr, flush=True))
    names = list(recipe.stages)
    if until is not None and until not in recipe.stages:
        raise ConfigError(f"until: recipe {recipe.name} has no stage {until!r}; stages: {', '.join(names)}")
    recipe.run_dir.mkdir(parents=True, exist_ok=True)
    log(f"recipe {recipe.name} ({recipe.path}): {len(names)} stages ({', '.join(names)}), "
        f"each into its folder of {recipe.run_dir}/")
    out = {}
    for i, name in enumerate(names, 1):
        s = recipe.stages[name]
        head = f"[{i}/{len(names)}] {name} ({s.do})"
        out[name] = RUNNERS[s.do](recipe, s, head, progress, log)
        if name == until:
            if i < len(names):
                log(f"stopped after {name} (--until); the same command without --until goes on at "
                    f"{names[i]}")
            break
    else:
        log(f"recipe {recipe.name} done: {recipe.run_dir}/")
    return out


def _train_stage(recipe: Recipe, s: Stage, head: str, progress: bool, log) -> str:
    cfg = recipe.train_config(s.name)
    folder = recipe.folder(s.name)
    final, last = folder / "final.pt", folder / "last.pt"
    wants_report = s.spec.report and cfg.eval.final_games > 0
    if final.exists():
        if not wants_report or (folder / "eval" / "results.json").exists():
            log(f"{head}: done ({final} is there), skipped")
            return "done"
        log(f"{head}: trained ({final}); its final report is missing, playing it into {folder}/eval/")
        data = load_checkpoint(final, cfg.game)
        report_run(cfg, folder, net=build_net(data), start=data.get("start_eval"))
        return "reported"
    resume = None
    if last.exists():
        resume = load_checkpoint(last, cfg.game)
        c = resume["counters"]
        log(f"{head}: resuming from {last} (update {c['updates']}, step {c['global_step']:,}, "
            f"{c['elapsed'] / 60:.1f} minutes trained)")
        _set_aside_later_records(folder, int(c["updates"]), log)
    else:
        if folder.exists() and any(folder.iterdir()):
            log(f"{head}: {folder} holds a start that left no checkpoint; starting again")
            shutil.rmtree(folder)
        what = f"{s.spec.config} with the recipe's settings" + (f", from {cfg.init}" if cfg.init else "")
        log(f"{head}: training ({what}) into {folder}/")
    tr = train(cfg, run_dir=folder, resume=resume, progress=progress, evaluate_start=s.spec.report)
    if tr.interrupted:
        raise Stopped(f"stage {s.name} stopped at step {tr.global_step:,} ({folder / 'last.pt'})")
    if wants_report:
        report_run(cfg, folder, net=tr.net, start=tr.start_eval)
    return "resumed" if resume is not None else "ran"


def _set_aside_later_records(folder: Path, updates: int, log) -> None:
    """Move the records files of the updates after the checkpoint (``records_<update>``,
    ``update >= updates``) out of ``records/``: the resumed run makes those updates again."""
    later = [f for f in sorted((folder / "records").glob("records_*.npz"))
             if int(f.stem.split("_")[1]) >= updates]
    if not later:
        return
    aside = folder / "records_after_checkpoint"
    aside.mkdir(exist_ok=True)
    for f in later:
        os.replace(f, aside / f.name)
    log(f"  moved {len(later)} records file(s) written after that checkpoint to {aside}/")


def _fit_stage(recipe: Recipe, s: Stage, head: str, progress: bool, log) -> str:
    spec = s.spec
    out = recipe.folder(s.name) / "fit.pt"
    if rows_path(out).exists():
        log(f"{head}: done ({rows_path(out)} is there), skipped")
        return "done"
    records = recipe.folder(spec.records) / "records"
    log(f"{head}: fitting a network to {records}/ ({spec.epochs} epochs, kept by {spec.select}) into {out}")
    cfg = recipe.train_config(s.name)
    t0 = time.perf_counter()
    best = fit_to_file(cfg, records, out, spec.epochs, spec.valid_every,
                       recipe.resolve(spec.init, s.name) if spec.init else None, log=log, select=spec.select,
                       first=spec.first or None, min_gain=spec.min_gain or None)
    log(f"{head}: {describe_kept(out, best)} in {(time.perf_counter() - t0) / 60:.1f} minutes")
    return "ran"


def _evaluate_stage(recipe: Recipe, s: Stage, head: str, progress: bool, log) -> str:
    spec = s.spec
    folder = recipe.folder(s.name)
    if (folder / "results.json").exists():
        log(f"{head}: done ({folder / 'results.json'} is there), skipped")
        return "done"
    ckpt = recipe.resolve(spec.checkpoint, s.name)
    data = load_checkpoint(ckpt)
    against = [str(recipe.resolve(str(a), s.name)) if str(a).split("/", 1)[0] in recipe.stages else str(a)
               for a in spec.against]
    players = spec.players or int(data["num_players"])
    args = [ckpt, *against, "--game", data["game"], "--games", spec.games, "--unit", spec.unit, "--seed", spec.seed,
            "--players", players, *(["--no-duplicate"] if not spec.duplicate else [])]
    for k, v in spec.options.items():
        args += ["--option", f"{k}={json.dumps(v)}"]
    log(f"{head}: {command_line('evaluate', *args)} into {folder}/")
    t = tournament.run_tournament([str(ckpt), *against], game=data["game"], games=spec.games, unit=spec.unit,
                                  players=players, duplicate=spec.duplicate, seed=spec.seed,
                                  options=dict(spec.options), show_progress=progress)
    print(report.format_table(t))
    tmp = folder.with_name(folder.name + ".tmp")  # written whole, then renamed: results.json means done
    shutil.rmtree(tmp, ignore_errors=True)
    report.write_outputs(t, tmp)
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(tmp, folder)
    log(f"{head}: wrote {folder / 'results.json'} and {folder / 'results.png'}")
    return "ran"


def _compress_stage(recipe: Recipe, s: Stage, head: str, progress: bool, log) -> str:
    out = recipe.folder(s.name) / "student.pt"
    if rows_path(out).exists():
        log(f"{head}: done ({rows_path(out)} is there), skipped")
        return "done"
    teacher = recipe.resolve(s.spec.teacher, s.name)
    log(f"{head}: distilling {teacher} into {out}")
    t0 = time.perf_counter()
    best = compress_to_file(teacher, out, s.spec.config(), log=log)
    log(f"{head}: {describe_student(out, best)} in {(time.perf_counter() - t0) / 60:.1f} minutes")
    return "ran"


def _export_stage(recipe: Recipe, s: Stage, head: str, progress: bool, log) -> str:
    out = export_path(recipe, s)
    if out.exists() and not s.spec.out:
        log(f"{head}: done ({out} is there), skipped")
        return "done"
    ckpt = recipe.resolve(s.spec.checkpoint, s.name)
    results = [recipe.folder(r) / "results.json" for r in s.spec.results]
    export_pretrained(ckpt, out, results)
    log(f"{head}: wrote {out} ({out.stat().st_size / 1e6:.2f} MB), the network of {ckpt}"
        + (f" with the pairings of {', '.join(map(str, results))}" if results else ""))
    log(f"  play it: {command_line('evaluate', out, 'simple', 'expert', '--game', load_checkpoint(out)['game'])}")
    return "ran"


RUNNERS = {"train": _train_stage, "fit": _fit_stage, "evaluate": _evaluate_stage, "compress": _compress_stage,
           "export": _export_stage}
