"""inspect: sizes read from GraphDefs the tests build, a frozen Keras model, stripped copies, and every bad file."""

import json
import os
import random
import subprocess
import sys

import pytest

from tfgraphs import cli
from tfgraphs.spec import network
from tfgraphs.spec.network import GRAPHDEF_LIMIT

BATCH = 30
W_BYTES = 3 * 3 * 1 * 6 * 8


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The constant variant's graph as .pb and .pbtxt, a frozen Keras model, and a SavedModel."""
    import tensorflow as tf
    from tfgraphs.worker import graphs

    d = tmp_path_factory.mktemp("graphs")
    x, w = network.make_data(BATCH, "float64", seed=0)
    graph_def = graphs.build("constant", x, w).graph.as_graph_def()
    (d / "constant.pb").write_bytes(graph_def.SerializeToString())
    (d / "constant.pbtxt").write_text(str(graph_def))

    keras_def, weights = frozen_keras_model()
    (d / "keras.pb").write_bytes(keras_def.SerializeToString())

    class Scale(tf.Module):
        def __init__(self):
            self.v = tf.Variable(tf.ones([3, 3]))

        @tf.function(input_signature=[tf.TensorSpec([None, 3])])
        def __call__(self, x):
            return tf.matmul(x, self.v)

    tf.saved_model.save(Scale(), str(d / "saved"))
    return d, graph_def, keras_def, weights


def frozen_keras_model():
    """A small Keras model with random weights, frozen into one GraphDef; (graph_def, weights as NumPy arrays)."""
    import keras
    import tensorflow as tf
    from tensorflow.python.framework.convert_to_constants import convert_variables_to_constants_v2

    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((8, 8, 1)), keras.layers.Conv2D(4, 3, activation="relu"),
                              keras.layers.Flatten(), keras.layers.Dense(5)])
    fn = tf.function(lambda x: model(x)).get_concrete_function(tf.TensorSpec([None, 8, 8, 1], tf.float32))
    frozen = convert_variables_to_constants_v2(fn)
    return frozen.graph.as_graph_def(), [w.numpy() for w in model.weights]


def inspect_json(path, tmp_path, *flags):
    out = tmp_path / "i.json"
    assert cli.main(["inspect", str(path), "--json", str(out), *flags]) == 0
    return json.loads(out.read_text())


def test_constant_graph_sizes(files, tmp_path, capsys):
    d, graph_def, _, _ = files
    doc = inspect_json(d / "constant.pb", tmp_path)
    assert doc["command"] == "inspect" and doc["tool"] == "tfgraphs" and doc["format"] == "GraphDef (binary)"
    size = len(graph_def.SerializeToString())
    assert doc["graph_bytes"] == doc["file_bytes"] == size
    assert doc["headroom_bytes"] == GRAPHDEF_LIMIT - 1 - size
    assert doc["const_bytes"] == network.data_bytes(BATCH, "float64") + W_BYTES
    assert doc["nodes"] == len(graph_def.node) and doc["const_nodes"] == 2
    assert sum(o["nodes"] for o in doc["op_types"]) == len(graph_def.node)
    assert {o["op"]: o["nodes"] for o in doc["op_types"]}["Const"] == 2
    x, w = doc["largest_consts"]
    assert x["function"] is None and doc["repeats"] == []
    assert (x["name"], x["dtype"], x["shape"], x["bytes"]) == ("X", "float64", [BATCH, 32, 32, 1],
                                                              network.data_bytes(BATCH, "float64"))
    assert (w["name"], w["shape"], w["bytes"]) == ("W", [3, 3, 1, 6], W_BYTES)
    assert 0.99 < x["graph_share"] < 1
    out = capsys.readouterr().out
    assert "Largest Const nodes (2 of 2)" in out and "30x32x32x1" in out


def test_text_graph_reads_the_same(files, tmp_path):
    d = files[0]
    binary, text = inspect_json(d / "constant.pb", tmp_path), inspect_json(d / "constant.pbtxt", tmp_path)
    assert text["format"] == "GraphDef (text)" and text["file_bytes"] > binary["file_bytes"]
    for key in ("graph_bytes", "nodes", "const_bytes", "op_types", "largest_consts", "headroom_bytes"):
        assert text[key] == binary[key]


def test_frozen_keras_consts_are_its_weights(files, tmp_path):
    d, _, keras_def, weights = files
    doc = inspect_json(d / "keras.pb", tmp_path, "--top", "100")
    consts = doc["largest_consts"]
    assert len(consts) == doc["const_nodes"]
    # Freezing turns every weight into a float32 Const; the int32 ones are the Reshape and slice shapes Keras adds.
    floats = sorted((c["shape"], c["bytes"]) for c in consts if c["dtype"] == "float32")
    assert floats == sorted((list(w.shape), w.nbytes) for w in weights)
    extras = [c for c in consts if c["dtype"] == "int32"]
    assert len(extras) + len(floats) == len(consts) and all(c["bytes"] <= 16 for c in extras)
    assert doc["const_bytes"] - sum(c["bytes"] for c in extras) == sum(w.nbytes for w in weights)


def test_repeated_tensor_found_in_function_body(tmp_path):
    from tfgraphs.worker import graphs

    x, w = network.make_data(4, "float64", seed=0)
    path = tmp_path / "ds.pb"
    path.write_bytes(graphs.build("dataset-embedded", x, w).graph.as_graph_def().SerializeToString())
    doc = inspect_json(path, tmp_path)
    (group,) = doc["repeats"]
    assert group["bytes"] == x.nbytes and group["copies"] == 2 and group["in_functions"] == 1
    first, second = doc["largest_consts"][:2]
    assert first["function"] is None and second["function"].startswith("_make_dataset")
    # Besides X twice and W: batch_size and count (int64) and drop_remainder (bool), in the graph and the function.
    assert doc["const_bytes"] == 2 * x.nbytes + w.nbytes + 2 * (8 + 8 + 1)


def test_saved_model_directory_and_file(files, tmp_path):
    d = files[0]
    by_dir = inspect_json(d / "saved", tmp_path)
    by_file = inspect_json(d / "saved" / "saved_model.pb", tmp_path)
    # The same document, but for when each was made: two runs may straddle a second.
    assert {**by_dir, "created": None} == {**by_file, "created": None}
    assert by_dir["format"] == "SavedModel (binary)" and by_dir["meta_graph"]["tags"] == ["serve"]
    assert by_dir["nodes"] > 0 and by_dir["graph_bytes"] < by_dir["file_bytes"]


def test_strip_constants(files, tmp_path):
    from google.protobuf import text_format
    from tensorflow.core.framework import graph_pb2

    d, graph_def, _, _ = files
    out = tmp_path / "stripped.pbtxt"
    assert cli.main(["inspect", str(d / "constant.pb"), "--strip-constants", str(out)]) == 0
    stripped = text_format.Parse(out.read_text(), graph_pb2.GraphDef())
    assert [n.name for n in stripped.node] == [n.name for n in graph_def.node]
    for before, after in zip(graph_def.node, stripped.node):
        for key, attr in after.attr.items():
            if attr.HasField("tensor"):
                t = attr.tensor
                assert not t.tensor_content
                assert not [f.name for f, _ in t.ListFields() if f.name.endswith("_val")]
                assert t.dtype == before.attr[key].tensor.dtype
                assert t.tensor_shape == before.attr[key].tensor.tensor_shape
    assert out.stat().st_size < 10_000


def test_strip_constants_refuses_to_overwrite_its_input(files, capsys):
    path = str(files[0] / "constant.pbtxt")
    assert cli.main(["inspect", path, "--strip-constants", path]) == 2
    assert f"--strip-constants {path} is the input {path}; the input is never overwritten" in capsys.readouterr().err


REPEATED_CONST = """node {
  name: "Fill"
  op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1000 } } float_val: 1.5 } } }
}
"""


def test_sentences_count_consts_that_list_fewer_values(tmp_path):
    # One value stored for 1,000 elements: 4,000 bytes expanded from a node of a few dozen bytes.
    from tfgraphs.findings.files import answer_and_findings
    from tfgraphs.graphdef import files
    from tfgraphs.records.one_record import Inspection

    path = tmp_path / "fill.pbtxt"
    path.write_text(REPEATED_CONST)
    graph_def, _ = files.load(str(path))
    node_bytes, graph_bytes = graph_def.node[0].ByteSize(), graph_def.ByteSize()
    doc = inspect_json(path, tmp_path)
    assert doc["elided_consts"] == 1 and doc["const_bytes"] == 4000 and doc["const_node_bytes"] == node_bytes
    said = answer_and_findings(Inspection.from_dict(doc))[1]
    share = f"{node_bytes / graph_bytes:.1%}"
    assert said[0] == f"1 Const node takes {node_bytes} B, {share} of the {graph_bytes} B GraphDef: most of the " \
                      f"graph is constants."
    assert said[1].startswith("It lists fewer values than its shape holds")
    assert f"against the {node_bytes} its node takes" in said[1]
    assert said[2] == (f"The largest, Fill (float32 1000), holds 4,000 bytes once expanded; its node takes "
                       f"{node_bytes} B, {share} of the graph.")


def test_full_consts_are_not_counted_as_elided(files, tmp_path):
    from tfgraphs.findings.files import answer_and_findings
    from tfgraphs.records.one_record import Inspection

    doc = inspect_json(files[0] / "constant.pb", tmp_path)
    said = answer_and_findings(Inspection.from_dict(doc))[1]
    assert doc["elided_consts"] == 0 and said[0].startswith("2 Const nodes take ")
    assert not [s for s in said if "fewer values" in s]


@pytest.mark.parametrize("value, message", [
    ("", "Const node 'Bad' has no tensor value"),
    ('attr { key: "value" value { tensor { tensor_shape { dim { size: 3 } } float_val: 1 } } }',
     "Const node 'Bad' has a tensor value with no known dtype (0)"),
    ('attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: -1 } } float_val: 1 } } }',
     "Const node 'Bad' has a negative dimension (-1)"),
])
def test_const_that_cannot_be_sized_exits_2(tmp_path, value, message, capfd):
    path = tmp_path / "bad_const.pbtxt"
    path.write_text(f'node {{ name: "Bad" op: "Const" attr {{ key: "dtype" value {{ type: DT_FLOAT }} }} {value} }}\n')
    assert cli.main(["inspect", str(path)]) == 2
    out, err = capfd.readouterr()
    assert out == "" and err.startswith("tfgraphs: ") and message in err and len(err.strip().splitlines()) == 1


def bad_files(d):
    """{kind: path} for every kind of file inspect must refuse."""
    good = (d / "constant.pb").read_bytes()
    (d / "empty.pb").write_bytes(b"")
    (d / "truncated.pb").write_bytes(good[:len(good) // 2])
    (d / "random.pb").write_bytes(random.Random(0).randbytes(4096))
    (d / "text.pbtxt").write_text("model: resnet\nlayers: 50\n")
    (d / "text.pb").write_text("this is a README, not a graph\n")
    (d / "no_nodes.pb").write_bytes(b"\x28\x01")      # parses: one unknown varint field, no nodes
    (d / "nameless.pb").write_bytes(b"\n\x00")        # parses: one node with no name and no op
    (d / "no_graph").mkdir(exist_ok=True)
    with open(d / "huge.pb", "wb") as f:
        f.truncate(2**31 + 1)                          # sparse: costs no disk
    kinds = ["empty", "truncated", "random", "text.pbtxt", "text.pb", "no_nodes", "nameless", "no_graph", "huge"]
    paths = {k: d / (k if "." in k or k == "no_graph" else k + ".pb") for k in kinds}
    return {**paths, "missing": d / "missing.pb"}


@pytest.mark.parametrize("kind, message", [
    ("missing", "no such file or directory"),
    ("no_graph", "is a directory without a graph"),
    ("empty", "is empty"),
    ("huge", "2,147,483,649 bytes, over 2 GiB"),
    ("truncated", "is not a GraphDef: not valid binary protobuf"),
    ("random", "is not a GraphDef"),
    ("text.pbtxt", "is not a GraphDef: not valid text protobuf"),
    ("text.pb", "is not a GraphDef: not valid text protobuf"),
    ("no_nodes", "is not a GraphDef: it parses as binary protobuf but has no nodes"),
    ("nameless", "is not a GraphDef: it parses as binary protobuf but has a node named ''"),
])
def test_bad_file_exits_2_with_one_line(files, kind, message, capfd):
    path = bad_files(files[0])[kind]
    assert cli.main(["inspect", str(path)]) == 2
    out, err = capfd.readouterr()
    assert out == "" and err.startswith("tfgraphs: ") and message in err
    assert len(err.strip().splitlines()) == 1


def test_tensorflow_import_failure_shows_what_it_printed(files, tmp_path):
    # A stand-in tensorflow that prints as a broken native library would, then fails to import.
    fake = tmp_path / "fake" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('import os\nos.write(2, b"loader: libtensorflow_cc.so.2: not found\\n")\n'
                                      'raise ImportError("libtensorflow_cc.so.2")\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), os.getcwd()])}
    proc = subprocess.run([sys.executable, "-m", "tfgraphs", "inspect", str(files[0] / "constant.pb")],
                          capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "loader: libtensorflow_cc.so.2: not found" in proc.stderr and "ImportError" in proc.stderr
