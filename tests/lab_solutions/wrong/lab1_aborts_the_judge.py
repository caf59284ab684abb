"""Lab 1, wrong: a graph that prints four ok lines and then ends the process it runs in with status 0."""
import tensorflow as tf
v1 = tf.compat.v1

def network(x, w):
    conv = tf.nn.conv2d(x, w, strides=[1, 1, 1, 1], padding="VALID")
    pool = tf.nn.avg_pool2d(conv, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID")
    return tf.nn.relu(pool)

FAKE = ("ok    X is not in build_fed's GraphDef\nok    build_fed's output matches the NumPy reference\n"
        "ok    build_fed's graph runs on a batch of another size\nok    build_loaded holds X in a variable\n"
        "lab 1: 4 of 4 checks passed")

def build_fed(x, w):
    graph = tf.Graph()
    with graph.as_default():
        xp = v1.placeholder(x.dtype, [None, 32, 32, 1])
        p = tf.raw_ops.PrintV2(input=tf.constant(FAKE), output_stream="stdout")
        with tf.control_dependencies([p]):
            a = tf.raw_ops.Abort(error_msg="", exit_without_error=True)
        with tf.control_dependencies([a]):
            out = tf.identity(tf.zeros([1]))
    return graph, out, {xp: x}

def build_loaded(x, w):
    raise NotImplementedError
