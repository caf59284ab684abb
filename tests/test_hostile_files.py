"""Hostile files: outputs over inputs or each other, inputs refused before they are read, malformed Consts, a link
in a lab's folder, terminal escapes in an error. One line on stderr and exit 2, nothing replaced."""

import json
import os
from pathlib import Path

import psutil
import pytest

from tfgraphs.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
SPARSE = {"big.json": 300_000_000, "zeros.pb": 1_900_000_000, "huge.pb": 2**31 + 5}


def const_graph(path, dims, content=b"", floats=()):
    """A GraphDef of one float Const named w with the given shape, tensor_content and float_val."""
    from tensorflow.core.framework import graph_pb2, types_pb2

    graph = graph_pb2.GraphDef()
    node = graph.node.add(name="w", op="Const")
    node.attr["dtype"].type = types_pb2.DT_FLOAT
    tensor = node.attr["value"].tensor
    tensor.dtype = types_pb2.DT_FLOAT
    for d in dims:
        tensor.tensor_shape.dim.add().size = d
    tensor.tensor_content = content
    tensor.float_val.extend(floats)
    path.write_bytes(graph.SerializeToString())


@pytest.fixture
def files(tmp_path):
    """An input, outputs already written where a command's outputs would go, and sparse files of every size."""
    (tmp_path / "in.pb").write_bytes(b"the input graph")
    for name, text in {"out2/saved_model.pb": "a SavedModel", "tr2/placeholder.default.first-run.trace.json": "{}",
                       "saved/saved_model.pb": "a SavedModel", "j1.json": "{}"}.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    for name, size in SPARSE.items():
        with open(tmp_path / name, "wb") as f:
            f.truncate(size)
    os.mkfifo(tmp_path / "fifo.pb")
    return tmp_path


# (argv with {tmp} for the fixture folder, what the one line says)
CASES = [
    (["inspect", "{tmp}/in.pb", "--json", "{tmp}/j1.json", "--strip-constants", "{tmp}/j1.json"],
     "--strip-constants and --json are the same file {tmp}/j1.json; give each its own"),
    (["unembed", "{tmp}/in.pb", "-o", "{tmp}/out2", "--json", "{tmp}/out2/saved_model.pb"],
     "--json {tmp}/out2/saved_model.pb is inside -o {tmp}/out2, which is written whole; give each its own"),
    (["unembed", "{tmp}/in.pb", "-o", "{tmp}/in.pb"], "-o {tmp}/in.pb is the input {tmp}/in.pb"),
    (["unembed", "{tmp}/saved", "-o", "{tmp}/saved/inner"], "-o {tmp}/saved/inner is inside the input {tmp}/saved"),
    (["explain", "--trace", "{tmp}/tr2", "--json", "{tmp}/tr2/placeholder.default.first-run.trace.json"],
     "--json {tmp}/tr2/placeholder.default.first-run.trace.json is a file --trace {tmp}/tr2 writes"),
    (["explain", "--graph", "{tmp}/in.pb", "--trace", "{tmp}/tr3", "--csv", "{tmp}/tr3/in.pb.bare.second-run.trace.json"],
     "--csv {tmp}/tr3/in.pb.bare.second-run.trace.json is a file --trace {tmp}/tr3 writes"),
    (["explain", "--tensorboard", "{tmp}/tb", "--json", "{tmp}/tb/constant/x.json"],
     "--json {tmp}/tb/constant/x.json is inside {tmp}/tb/constant (a folder --tensorboard {tmp}/tb writes), "
     "which is written whole"),
    (["explain", "--trace", "{tmp}/tb/placeholder", "--tensorboard", "{tmp}/tb"],
     "--trace {tmp}/tb/placeholder is a folder --tensorboard {tmp}/tb writes"),
    (["explain", "--graph", "{tmp}/in.pb", "--trace", "{tmp}/in.pb"], "--trace {tmp}/in.pb is the input"),
    (["explain", "--trace", "{tmp}/tr", "--json", "{tmp}/tr"], "--trace and --json are the same path {tmp}/tr"),
    (["report", "{tmp}/big.json"], "big.json is 300,000,000 bytes, larger than 268,435,456"),
    (["inspect", "{tmp}/zeros.pb"], "zeros.pb is not a GraphDef: not valid binary protobuf (its first byte 0x00 "
                                    "starts field number 0"),
    (["inspect", "{tmp}/huge.pb"], "huge.pb is 2,147,483,653 bytes, over 2 GiB"),
    (["explain", "--graph", "{tmp}/zeros.pb"], "field number 0"),
    (["inspect", "{tmp}/fifo.pb"], "fifo.pb is not a regular file"),
    (["inspect", "/dev/zero"], "/dev/zero is not a regular file"),
]


def tree(folder):
    """Every path under folder with its bytes (a sparse file by its size): what a refusal must leave as it was."""
    return {str(p.relative_to(folder)): (p.stat().st_size if p.name in SPARSE else p.read_bytes())
            if p.is_file() else None for p in folder.rglob("*")}


@pytest.mark.parametrize("argv, said", CASES, ids=lambda c: " ".join(c) if isinstance(c, list) else None)
def test_bad_files_get_one_line_exit_2_unread_and_nothing_replaced(files, capsys, argv, said):
    before, me = tree(files), psutil.Process()
    read = me.io_counters().read_chars
    code = main([a.format(tmp=files) for a in argv])
    _, err = capsys.readouterr()
    assert (code, len(err.splitlines())) == (2, 1), err
    assert said.format(tmp=files) in err
    assert tree(files) == before
    # The big files are refused by their size or first bytes: far less than one of them is read.
    assert me.io_counters().read_chars - read < 50_000_000


@pytest.mark.parametrize("dims, content, floats, said", [
    ([1000, 1000], b"\0" * 8, (), "has 8 bytes of tensor_content where its shape [1000, 1000] of float32 holds "
                                  "4,000,000"),
    ([2], b"\0" * 4 * 2**20, (), "has 4,194,304 bytes of tensor_content where its shape [2] of float32 holds 8"),
    ([2**62, 2**62], b"", (1.0,), "has a shape of 2.13e+37 elements, more than TensorFlow's 2**63 - 1"),
])
def test_a_const_whose_content_its_shape_cannot_hold_is_refused(tmp_path, capsys, dims, content, floats, said):
    const_graph(tmp_path / "bad.pb", dims, content, floats)
    assert main(["inspect", str(tmp_path / "bad.pb")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"Const node 'w' {said}, of which TensorFlow cannot make a tensor" in err


def test_well_formed_consts_are_sized_as_before(tmp_path):
    from tensorflow.core.framework import graph_pb2

    from tfgraphs.graphdef.consts import const_bytes

    const_graph(tmp_path / "full.pb", [4, 4], b"\0" * 64)
    const_graph(tmp_path / "splat.pb", [40_000, 1_000_000], floats=(1.0,))
    const_graph(tmp_path / "extra.pb", [2], floats=(1.0, 2.0, 3.0))   # TensorFlow takes the first two
    sizes = []
    for name in ("full", "splat", "extra"):
        graph = graph_pb2.GraphDef.FromString((tmp_path / f"{name}.pb").read_bytes())
        sizes.append(const_bytes(graph))
    assert sizes == [64, 160_000_000_000, 8]
    assert main(["inspect", str(tmp_path / "extra.pb")]) == 0


def test_a_text_graph_past_the_memory_left_is_refused_before_parsing(tmp_path, capsys, monkeypatch):
    from tfgraphs import machine

    escapes = 250_000
    (tmp_path / "esc.pbtxt").write_text('node { name: "w" op: "Const" attr { key: "value" value { tensor { dtype: '
                                        f'DT_UINT8 tensor_shape {{ dim {{ size: {escapes} }} }} tensor_content: "'
                                        + "\\000" * escapes + '" } } } }\n')
    monkeypatch.setattr(machine, "allocatable_bytes", lambda: 100_000_000)   # parsing it takes about 146 MB
    assert main(["inspect", str(tmp_path / "esc.pbtxt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "would take about 146.0 MB to parse but 100.0 MB is available" in err


def test_running_out_of_memory_while_parsing_is_one_line(tmp_path, capsys, monkeypatch):
    from google.protobuf import text_format

    def exhausted(*args, **kwargs):
        raise MemoryError

    (tmp_path / "g.pbtxt").write_text('node { name: "x" op: "NoOp" }\n')
    monkeypatch.setattr(text_format, "Parse", exhausted)
    assert main(["inspect", str(tmp_path / "g.pbtxt")]) == 2
    err = capsys.readouterr().err
    assert err == f"tfgraphs: {tmp_path}/g.pbtxt: ran out of memory while parsing it as text protobuf; free some, " \
                  f"or raise this process's limit (ulimit -v)\n"


def test_lab_start_never_writes_through_a_link(tmp_path, capsys):
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "README.md").symlink_to(tmp_path / "outside.md")   # dangling: exists() says no
    assert main(["lab", "start", "1", str(tmp_path / "lab")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{tmp_path}/lab/README.md (a symbolic link) already exists" in err
    assert not (tmp_path / "outside.md").exists() and sorted(os.listdir(tmp_path / "lab")) == ["README.md"]


def test_a_failed_rows_error_is_printed_escaped(tmp_path, capsys):
    doc = json.loads((FIXTURES / "compare.json").read_text())
    doc["variants"][0] = {**doc["variants"][0], "status": "failed", "error": "boom \x1b[31mred\x1b[0m\x07\x9b2J\tend"}
    (tmp_path / "esc.json").write_text(json.dumps(doc))
    assert main(["report", str(tmp_path / "esc.json")]) == 0
    out = capsys.readouterr().out
    assert "boom \\x1b[31mred\\x1b[0m\\x07\\x9b2J" in out   # a tab moves no cursor but its own: kept
    assert not any(c in out for c in "\x1b\x07\x9b")


def test_no_field_of_a_document_drives_the_terminal(tmp_path, capsys):
    doc = json.loads((FIXTURES / "compare.json").read_text())
    doc["machine"]["cpu_model"] = "AMD \x1b]0;pwned\x07\x1b[2J"
    doc["tf_version"] = "2.21\r\x1b[1A"
    (tmp_path / "cpu.json").write_text(json.dumps(doc))
    assert main(["report", str(tmp_path / "cpu.json")]) == 0
    assert main(["report", str(tmp_path / "cpu.json"), str(tmp_path / "cpu.json")]) == 0
    out = capsys.readouterr().out
    assert out.count("pwned\\x07") == 3 and out.count("\\x1b[1A") == 3   # each report's header, and both in one
    assert not any(c in out for c in "\x1b\x07\r")


@pytest.mark.parametrize("name, head, said", [
    ("big.pb", b"\x0a\x80\x80\x80\xd6\x06", "would take about 5.7 GB to read and parse but 1.0 GB is available"),
    ("big.pbtxt", b'node {\n name: "a"\n', "would take about 11.4 GB to read and parse but 1.0 GB is available"),
])
def test_a_graph_file_whose_reading_would_not_fit_is_refused_unread(tmp_path, capsys, monkeypatch, name, head, said):
    from tfgraphs import machine

    with open(tmp_path / name, "wb") as f:   # a plausible start, then 1.9 GB the file system need not store
        f.write(head)
        f.truncate(1_900_000_000)
    monkeypatch.setattr(machine, "allocatable_bytes", lambda: 1_000_000_000)
    assert main(["inspect", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and said in err and "it was not read further" in err
