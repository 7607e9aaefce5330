"""Plain-data state: random generators and arrays as what a checkpoint or Ray carries.

A numpy generator's state is written with its 128-bit numbers as strings (``torch.save``
with ``weights_only`` reads no Python ints that large); arrays go to checkpoints as CPU
tensors and across Ray as numpy arrays (:func:`to_numpy`, :func:`to_torch`); a large batch
goes to a checkpoint compressed (:func:`pack_arrays`).
"""

from __future__ import annotations

import zlib

import numpy as np
import torch


def rng_state(rng: np.random.Generator) -> dict:
    """The state of ``rng`` as plain data."""
    s = rng.bit_generator.state
    return {"bit_generator": s["bit_generator"], "state": str(s["state"]["state"]), "inc": str(s["state"]["inc"]),
            "has_uint32": s["has_uint32"], "uinteger": s["uinteger"]}


def set_rng_state(rng: np.random.Generator, d: dict) -> None:
    """Put back the state :func:`rng_state` wrote."""
    rng.bit_generator.state = {"bit_generator": d["bit_generator"],
                               "state": {"state": int(d["state"]), "inc": int(d["inc"])},
                               "has_uint32": d["has_uint32"], "uinteger": d["uinteger"]}


def tensor(a: np.ndarray) -> torch.Tensor:
    """A CPU tensor holding a copy of ``a`` (what a checkpoint keeps of an array)."""
    return torch.from_numpy(np.array(a, copy=True, order="C"))


def map_leaves(obj, kind, fn):
    """``obj`` with ``fn`` applied to every value of type ``kind`` inside it (dicts, lists and
    tuples rebuilt, anything else kept as it is)."""
    if isinstance(obj, kind):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: map_leaves(v, kind, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_leaves(v, kind, fn) for v in obj)
    return obj


def to_cpu(obj):
    """``obj`` with every tensor on the CPU."""
    return map_leaves(obj, torch.Tensor, lambda t: t.cpu())


def to_numpy(obj):
    """Tensors to numpy arrays, through containers: what crosses Ray (torch's own pickling
    of tensors does not survive Ray's serializer in every torch version)."""
    return map_leaves(obj, torch.Tensor, lambda t: t.cpu().numpy())


def to_torch(obj):
    """The inverse of :func:`to_numpy` (writable copies): what checkpoints hold."""
    return map_leaves(obj, np.ndarray, lambda a: torch.from_numpy(np.array(a)))


def pack_arrays(arrays: dict[str, np.ndarray], level: int = 1) -> dict:
    """Arrays as a checkpoint keeps a large, mostly-zero batch: each one's bytes compressed
    by zlib (``level`` 1: fast; a rollout's observations shrink about tenfold) in a uint8
    tensor, with its dtype and shape. :func:`unpack_arrays` gives them back bit for bit."""
    out = {}
    for k, a in arrays.items():
        a = np.ascontiguousarray(a)
        data = zlib.compress(a.tobytes(), level)
        out[k] = {"dtype": a.dtype.str, "shape": list(a.shape),
                  "data": torch.frombuffer(bytearray(data), dtype=torch.uint8)}
    return out


def unpack_arrays(packed: dict) -> dict[str, np.ndarray]:
    """The arrays :func:`pack_arrays` packed."""
    return {k: np.frombuffer(zlib.decompress(v["data"].numpy().tobytes()), dtype=np.dtype(v["dtype"]))
            .reshape(v["shape"]).copy() for k, v in packed.items()}
