"""Graphs the tests build and save: a frozen CNN, an embedded lookup table, mixed inputs, a TF1 SavedModel."""

import numpy as np

from tfgraphs.tfimport import import_tensorflow

TABLE_ROWS, TABLE_WIDTH = 8192, 64   # float32: 2 MiB


def _write(graph_def, path):
    path.write_bytes(graph_def.SerializeToString())
    return path


def frozen_cnn(path):
    """A conv -> relu -> dense CNN with variables, frozen with convert_variables_to_constants."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 8, 8, 1], name="images")
        w = v1.get_variable("conv_w", [3, 3, 1, 4], initializer=v1.random_normal_initializer(seed=1))
        d = v1.get_variable("dense_w", [6 * 6 * 4, 3], initializer=v1.random_normal_initializer(seed=2))
        h = tf.nn.relu(tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID"))
        tf.identity(tf.matmul(tf.reshape(h, [-1, 6 * 6 * 4]), d), name="logits")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            frozen = v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), ["logits"])
    return _write(frozen, path)


def table(seed=0):
    return np.random.default_rng(seed).random((TABLE_ROWS, TABLE_WIDTH)).astype(np.float32)


def lookup(path):
    """ids [N] int32 -> gather from a 2 MiB embedded table -> row sums [N]."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        ids = v1.placeholder(tf.int32, [None], name="ids")
        emb = tf.constant(table(), name="table")
        tf.reduce_sum(tf.gather(emb, ids), axis=1, name="scores")
    return _write(graph.as_graph_def(), path)


def mixed(path):
    """A float [2, 3] input and an int64 [2] input: y = x * (k + 1) + 0.5, with a NoOp left unconsumed."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [2, 3], name="x")
        k = v1.placeholder(tf.int64, [2], name="k")
        tf.add(x * tf.cast(k + 1, tf.float32)[:, None], 0.5, name="y")
        tf.no_op(name="nothing")
    return _write(graph.as_graph_def(), path)


def saved_model(folder):
    """A TF1 SavedModel: a variable weight and an embedded 64 KiB bias, with the signature serving_default."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 128], name="features")
        w = v1.get_variable("w", [128, 128], initializer=v1.random_normal_initializer(seed=3))
        bias = tf.constant(np.linspace(0, 1, 128 * 128, dtype=np.float32).reshape(128, 128), name="bias")
        y = tf.matmul(x, w + bias, name="y")
        info = v1.saved_model.utils.build_tensor_info
        sig = v1.saved_model.signature_def_utils.build_signature_def({"in": info(x)}, {"out": info(y)},
                                                                     "tensorflow/serving/predict")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            builder = v1.saved_model.builder.SavedModelBuilder(str(folder))
            builder.add_meta_graph_and_variables(sess, ["serve"], {"serving_default": sig})
            builder.save()
    return folder


def with_function(path):
    """x [4] -> a tf.function adding an embedded 4 KiB vector's sum, so the large Const lives in a function body."""
    tf = import_tensorflow()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [4], name="x")

        @tf.function
        def add_table(v):
            return v + tf.reduce_sum(tf.constant(np.arange(1024, dtype=np.float32), name="inner"))

        tf.identity(add_table(x), name="y")
    return _write(graph.as_graph_def(), path)
