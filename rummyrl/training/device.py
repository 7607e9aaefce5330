"""Where the learner runs and what it computes in: the ``device`` and ``precision`` options
read against this machine (a CUDA device that is there, bfloat16 where it is native)."""

from __future__ import annotations

import re

import torch

from rummyrl.agents.network import PRECISIONS, bf16_supported
from rummyrl.settings import SettingsError as ConfigError


def resolve_precision(precision: str, device) -> str:
    """The precision (:data:`~rummyrl.agents.network.PRECISIONS`) the ``precision`` option
    means on ``device``; :class:`ConfigError` for an unknown one, or ``bf16`` where the
    device would only emulate it."""
    if precision not in (*PRECISIONS, "auto"):
        raise ConfigError(f"precision must be one of {(*PRECISIONS, 'auto')}, got {precision!r}")
    native = bf16_supported(device)
    if precision == "bf16" and not native:
        raise ConfigError(f"precision=bf16: {device} has no native bfloat16 (a CPU needs AVX-512 BF16 or AMX); "
                          f"use precision=fp32, or precision=auto (bf16 only where the device has it)")
    if precision == "auto":
        return "bf16" if native else "fp32"
    return precision


def play_precision(precision: str, device) -> str:
    """The precision the players compute in on ``device`` (the learner's seats and the pool's
    snapshots): the ``precision`` option's where the device has bfloat16 natively, else
    ``fp32`` (a rollout worker's CPU may lack what the learner's device has). Evaluations
    and the agents a run ships always play in float32."""
    return "bf16" if precision in ("bf16", "auto") and bf16_supported(device) else "fp32"


def resolve_device(device: str):
    """The ``torch.device`` of the ``device`` option; :class:`ConfigError` for an unknown
    name, or for ``cuda`` where this torch has no CUDA."""
    if device not in ("auto", "cpu", "cuda") and not re.fullmatch(r"cuda:\d+", device):
        raise ConfigError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ConfigError(f"device={device}: CUDA is not available to this torch ({torch.__version__}"
                              f"{', a CPU-only build' if torch.version.cuda is None else ''}); use device=cpu "
                              f"or device=auto, or install a CUDA build of torch")
        index = int(device.split(":")[1]) if ":" in device else 0
        if index >= torch.cuda.device_count():
            raise ConfigError(f"device={device}: this machine has {torch.cuda.device_count()} CUDA device(s)")
    return torch.device(device)
