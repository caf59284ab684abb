"""Build the seed network in its own tf.Graph, one builder per variant (imports TensorFlow)."""

from dataclasses import dataclass, field

import tensorflow as tf

v1 = tf.compat.v1


@dataclass
class Built:
    """A built graph and what a session needs to run it."""

    output: tf.Tensor
    feed: dict = field(default_factory=dict)   # fed on every run
    init: object = None                        # op run once before the first run
    init_feed: dict = field(default_factory=dict)
    graph: tf.Graph = None


def seed_network(x, w):
    """conv2d 3x3/1 VALID -> avg_pool 2x2/2 VALID -> relu, as in the seed."""
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID", name="conv")
    pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID", name="pool")
    return tf.nn.relu(pool, name="relu")


def _numpy(x, w):
    return Built(seed_network(x, w))


def _constant(x, w):
    out = seed_network(tf.constant(x, name="X"), tf.constant(w, name="W"))
    return Built(out)


def _placeholder(x, w):
    # As in the seed, both X and W are fed.
    xp = v1.placeholder(x.dtype, [None, *x.shape[1:]], name="X")
    wp = v1.placeholder(w.dtype, w.shape, name="W")
    return Built(seed_network(xp, wp), feed={xp: x, wp: w})


def _variable(x, w, data_device=None):
    # Where X lives decides which bytes cross between tasks in a cluster; None leaves it with the network.
    with tf.device(data_device):
        xp = v1.placeholder(x.dtype, x.shape, name="X_init")
        xv = v1.Variable(xp, trainable=False, name="X")
    out = seed_network(xv, tf.constant(w, name="W"))
    return Built(out, init=xv.initializer, init_feed={xp: x})


def _dataset_embedded(x, w):
    ds = tf.data.Dataset.from_tensor_slices(x).batch(x.shape[0]).repeat()
    batch = v1.data.make_one_shot_iterator(ds).get_next(name="X")
    return Built(seed_network(batch, tf.constant(w, name="W")))


def _dataset_fed(x, w):
    xp = v1.placeholder(x.dtype, x.shape, name="X_init")
    ds = tf.data.Dataset.from_tensor_slices(xp).batch(x.shape[0]).repeat()
    it = v1.data.make_initializable_iterator(ds)
    out = seed_network(it.get_next(name="X"), tf.constant(w, name="W"))
    return Built(out, init=it.initializer, init_feed={xp: x})


BUILDERS = {
    "numpy": _numpy,
    "constant": _constant,
    "placeholder": _placeholder,
    "variable": _variable,
    "dataset-embedded": _dataset_embedded,
    "dataset-fed": _dataset_fed,
}

# Builders that can keep X on a device of its own (a variable is state, so it may live on a parameter server).
PLACES_DATA = ("variable",)


def build(variant, x, w, returns="output", network_device=None, data_device=None):
    """Build `variant` of the network on x, w in a fresh graph, on the devices named (None: TensorFlow's choice).

    returns="sum" fetches the output's sum instead, computed where the network runs so only a scalar comes back.
    """
    graph = tf.Graph()
    with graph.as_default(), tf.device(network_device):
        placed = data_device and variant in PLACES_DATA
        built = BUILDERS[variant](x, w, data_device) if placed else BUILDERS[variant](x, w)
        if returns == "sum":
            built.output = tf.reduce_sum(built.output, name="output_sum")
    built.graph = graph
    return built
