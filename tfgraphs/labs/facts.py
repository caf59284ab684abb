"""What crosses from the process running a student's code to the judge: plain data, never objects or functions.

Numbers, strings, booleans, None, lists, dicts, sets, bytes and NumPy arrays are written as JSON; arrays as .npy
bytes read back without pickle. Anything else is refused where it is written, so nothing the student made can run
in the judge.
"""

import base64
import io
import numbers

import numpy as np


def encode(value):
    """value as JSON-ready data; TypeError for anything that is not plain data."""
    if isinstance(value, np.ndarray):
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(value), allow_pickle=False)
        return {"ndarray": base64.b64encode(buffer.getvalue()).decode("ascii")}
    if isinstance(value, np.generic):
        return encode(value.item())
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode("ascii")}
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"set": [encode(v) for v in value]}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if value is None or isinstance(value, (bool, str)):
        return type(value)(value) if value is not None else None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"a {type(value).__name__} is not plain data")


def decode(data):
    """The value encode() wrote; lists come back as tuples, so they can sit in sets and compare with ==."""
    if isinstance(data, list):
        return tuple(decode(v) for v in data)
    if isinstance(data, dict):
        (kind, body), = data.items()
        if kind == "ndarray":
            return np.load(io.BytesIO(base64.b64decode(body)), allow_pickle=False)
        if kind == "bytes":
            return base64.b64decode(body)
        if kind == "dict":
            return {decode(k): decode(v) for k, v in body}
        return frozenset(decode(v) for v in body)
    return data
