"""Lab 1, wrong: the starter, and a forgery: facts computed beside it are written straight into the checker's pipe."""

import json
import os

import tensorflow as tf

from tfgraphs.labs import rerun
from tfgraphs.labs.checking import check_name, encode
from tfgraphs.spec import network as reference

v1 = tf.compat.v1


def network(x, w):
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")
    pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    return tf.nn.relu(pool)


def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        out = network(tf.constant(x), tf.constant(w))
    return graph, out, {}


def build_loaded(x, w):
    raise NotImplementedError


def forged():
    """The facts a passing solution's checks once sent, computed here with the reference network."""
    x, w = reference.make_data(50, "float64", 0)
    x7 = reference.make_data(7, "float64", 1)[0]
    y = reference.reference_forward(x, w)
    return [{"size": 500, "x_bytes": x.nbytes, "largest": None}, {"y": y}, {"y": reference.reference_forward(x7, w)},
            {"size": 500, "python": [], "first": y, "second": y, "holds": ["Variable"]}]


def pipes():
    """The pipes this process may write to, other than its stdout and stderr."""
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                yield fd
        except OSError:
            continue


events = [{"checks": [check_name(c) for c in rerun.CHECKS[1]]}]
for check, facts in zip(rerun.CHECKS[1], forged()):
    events += [{"start": check_name(check)}, {"facts": encode(facts)}]
for fd in pipes():
    try:
        os.write(fd, "".join(json.dumps(e) + "\n" for e in events).encode())
    except OSError:
        continue
os._exit(0)
