"""A user's graph as the workers see it: its feeds and fetches as flags, their seeded data, and output tolerances."""

import os
from dataclasses import dataclass

import numpy as np

# What `--int-high` defaults to: integer inputs are drawn from [0, 2), valid ids for any table of two or more rows.
INT_HIGH = 2
# unembed moves the Consts of at least this many bytes unless --min-bytes says otherwise.
MIN_BYTES = 1 << 20
# Largest |original - rewritten| accepted, relative to max(1, largest |original output|); exact for non-floats.
TOLERANCE = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-12}


@dataclass(frozen=True)
class Feed:
    """One input: the tensor fed, its dtype name and its shape (every dimension known when it is to be fed)."""

    tensor: str
    dtype: str
    shape: tuple

    def encode(self):
        return f"{self.tensor}={self.dtype}:{','.join(map(str, self.shape))}"

    @classmethod
    def decode(cls, text):
        tensor, spec = text.rsplit("=", 1)
        dtype, dims = spec.split(":", 1)
        return cls(tensor, dtype, tuple(int(d) for d in dims.split(",") if d))


def graph_name(path):
    """How rows, traces and TensorBoard name the graph at path: its file or folder name."""
    return os.path.basename(os.path.normpath(path))


def encode_feeds(feeds):
    """Feeds as one flag value: tensor=dtype:d1,d2;... (node names hold none of = : ;)."""
    return ";".join(f.encode() for f in feeds)


def decode_feeds(text):
    return tuple(Feed.decode(t) for t in text.split(";") if t)


def encode_fetches(fetches):
    return ",".join(fetches)


def decode_fetches(text):
    return tuple(t for t in text.split(",") if t)


def feed_data(feeds, seed, int_high=INT_HIGH):
    """{tensor: array} of seeded random data: floats in [0, 1), integers in [0, int_high), booleans either way."""
    rng = np.random.default_rng(seed)
    data = {}
    for f in feeds:
        dtype = np.dtype(f.dtype)
        if dtype.kind == "f":
            data[f.tensor] = rng.random(f.shape).astype(dtype)
        elif dtype.kind in "iu":
            data[f.tensor] = rng.integers(0, int_high, size=f.shape).astype(dtype)
        elif dtype.kind == "b":
            data[f.tensor] = rng.integers(0, 2, size=f.shape).astype(bool)
        else:
            raise ValueError(f"cannot make data of dtype {f.dtype} for {f.tensor}")
    return data


def tolerance(dtype, reference):
    """The largest absolute difference accepted for outputs of this dtype against the reference array."""
    scale = max(1.0, float(np.max(np.abs(reference)))) if np.size(reference) else 1.0
    return TOLERANCE.get(str(dtype), 0.0) * scale


def max_abs_difference(a, b):
    """Largest |a - b| as a float; inf when the shapes differ."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return float("inf")
    if a.size == 0:
        return 0.0
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
