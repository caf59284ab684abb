"""Loaded by every Python process of a test session (tests/conftest.py puts this folder on PYTHONPATH)."""

import os

if "TFGRAPHS_TEST_FORKING" in os.environ:
    import forkserver

    forkserver.install()
