"""Checkpoint files: a run's state or a network alone, written atomically, read with
errors that name the file and the cause.

``train.py`` writes checkpoints with :func:`save_checkpoint` (the payload of
:mod:`rummyrl.training.checkpoint`); :func:`save_weights` writes a network alone (the
shipped networks in ``pretrained/``); :func:`load_checkpoint` reads either, and
:func:`build_net` makes its :class:`~rummyrl.agents.network.PolicyNet`.
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from pathlib import Path

import torch

from .base import check_game
from .network import NetConfig, PolicyNet

CHECKPOINT_FORMAT = "rummyrl-checkpoint"
CHECKPOINT_VERSION = 1


def save_checkpoint(path: str | Path, payload: dict) -> None:
    """Write atomically: a crash mid-write never replaces a good checkpoint with a bad one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save({"format": CHECKPOINT_FORMAT, "version": CHECKPOINT_VERSION, **payload}, tmp)
    os.replace(tmp, path)


def load_checkpoint(path: str | Path, game: str | None = None) -> dict:
    """Read a checkpoint, with a one-line error naming the file and the cause for a missing,
    corrupt or foreign file."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint {str(path)!r} does not exist")
    if path.stat().st_size == 0:
        raise ValueError(f"checkpoint {str(path)!r} is corrupt or not a checkpoint (the file is empty)")
    try:
        with warnings.catch_warnings():  # torch warns about pickle protocols of files it then refuses
            warnings.simplefilter("ignore")
            data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # noqa: BLE001 - any unpickling failure means a bad file
        cause = load_cause(e)
        raise ValueError(f"checkpoint {str(path)!r} is corrupt or not a checkpoint "
                         f"({type(e).__name__}{': ' + cause if cause else ''})") from None
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"{str(path)!r} is not a rummyrl checkpoint")
    if data.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"checkpoint {str(path)!r} has version {data.get('version')}, this code reads {CHECKPOINT_VERSION}")
    if game is not None and data.get("game") != game:
        raise ValueError(f"checkpoint {str(path)!r} was trained for {data.get('game')!r}, not {game!r}")
    return data


def load_cause(e: Exception) -> str:
    """The one line of a ``torch.load`` failure that names its cause. torch's message runs to
    several lines of advice (re-run with ``weights_only=False``, which would execute the
    file's code): of a refused unpickling only what the unpickler said, of anything else its
    first sentence."""
    text = str(e)
    if "WeightsUnpickler error:" in text:
        text = text.split("WeightsUnpickler error:", 1)[1]
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line.split(". ", 1)[0].rstrip(".")


def build_net(data: dict) -> PolicyNet:
    """The network of a checkpoint, weights loaded."""
    try:
        net = PolicyNet(data["game"], NetConfig.from_dict(data["net_config"]))
        net.load_state_dict(data["model"])
    except (KeyError, TypeError, RuntimeError, ValueError) as e:
        raise ValueError(f"checkpoint does not hold a usable network ({type(e).__name__}: {e})") from None
    return net


#: the shipped networks: ``pretrained/<game>.pt`` beside this module (docs: pretrained agents)
PRETRAINED_DIR = Path(__file__).resolve().parent / "pretrained"


#: the kinds of shipped network: the agent name of each, and its file's suffix
PRETRAINED_KINDS = {"pretrained": "", "pretrained-plain": "-plain"}


def pretrained_path(game, kind: str = "pretrained") -> Path:
    """Where the shipped network ``kind`` (:data:`PRETRAINED_KINDS`) of ``game`` lies:
    ``pretrained`` starts from the tuned expert's preference, ``pretrained-plain`` learned
    from the rules alone."""
    if kind not in PRETRAINED_KINDS:
        raise ValueError(f"no shipped network is called {kind!r}; the names are {list(PRETRAINED_KINDS)}")
    return PRETRAINED_DIR / f"{check_game(game)}{PRETRAINED_KINDS[kind]}.pt"


def save_weights(dst: str | Path, game: str, num_players: int, net_config: dict, model: dict,
                 train_config: dict | None = None, about: dict | None = None) -> Path:
    """Write a network alone (no optimizer, games or snapshots), with the config that
    trained it and ``about`` (where it came from, what it measured): a small file that
    loads like any checkpoint."""
    save_checkpoint(dst, {"game": game, "num_players": num_players, "net_config": net_config,
                          "model": {k: v.detach().cpu() for k, v in model.items()},
                          "train_config": dict(train_config or {}), "about": dict(about or {})})
    return Path(dst)


def export_weights(src: str | Path, dst: str | Path, about: dict | None = None) -> Path:
    """The network of checkpoint ``src`` alone, written to ``dst`` (:func:`save_weights`)."""
    data = load_checkpoint(src)
    return save_weights(dst, data["game"], data["num_players"], data["net_config"], data["model"],
                        data.get("train_config"), about)


def net_config_dict(cfg: NetConfig) -> dict:
    return dataclasses.asdict(cfg)
