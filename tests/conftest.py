"""Shared helpers: run the CLI as a user would, in a subprocess."""

import json
import subprocess
import sys

import pytest

from tfgraphs.jobs.netns import enter_private_network

# TensorFlow's gRPC servers listen on every interface: the tests that start them run only where this process (and so
# every server and worker it starts) has a network of its own, with loopback as its one interface.
PRIVATE_NETWORK = enter_private_network()
needs_private_network = pytest.mark.skipif(
    PRIVATE_NETWORK is not None, reason=f"starts gRPC servers, so needs a private network namespace: {PRIVATE_NETWORK}")


def words(text):
    """text with every run of whitespace made one space: sentences folded to the width read as one line."""
    return " ".join(text.split())


def run_cli(*args, timeout=600):
    """Run `python -m tfgraphs ARGS`; return the CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "tfgraphs", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="session")
def compare_json(tmp_path_factory):
    """One tiny real compare run of the four default variants, shared by the tests that read it."""
    path = tmp_path_factory.mktemp("compare") / "out.json"
    proc = run_cli("compare", "--batch", 20, "--runs", 3, "--json", path, "--quiet")
    assert proc.returncode == 0, proc.stderr
    return path, json.loads(path.read_text()), proc
