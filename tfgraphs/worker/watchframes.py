"""The user's own frame: the innermost outside TensorFlow, tfgraphs, installed packages and the import machinery."""

import contextlib
import importlib
import os
import runpy
import sys
import threading

UNKNOWN = ("<unknown>", 0)
# Creation stacks remembered by hash: the ops one line makes share a stack, and a walk costs ten lookups or so.
MAX_STACKS = 10000
# Folders whose files are never the user's: installed packages and the import system's pseudo-files.
PACKAGE_FOLDERS = ("site-packages", "dist-packages")
FROZEN = "<frozen "


def _folder(module_file):
    """The folder of a module file, with a trailing separator, real and absolute."""
    return os.path.dirname(os.path.realpath(module_file)) + os.sep


class UserFrames:
    """Decides, once per file name, whether a frame's file belongs to the user."""

    def __init__(self, script=None):
        self.script = os.path.abspath(script) if script else None
        self.verdicts = {}
        self.stacks = {}
        self.foreign_folders = [_folder(sys.modules["tfgraphs"].__file__), _folder(importlib.__file__)]
        self.foreign_files = {os.path.realpath(m.__file__) for m in (runpy, threading, contextlib)}

    def add_tensorflow(self, tensorflow_python_module):
        """Count the TensorFlow package (found from its tensorflow.python module) as not the user's."""
        folder = os.path.dirname(_folder(tensorflow_python_module.__file__).rstrip(os.sep)) + os.sep
        if folder not in self.foreign_folders:
            self.foreign_folders.append(folder)
            self.verdicts.clear()
            self.stacks.clear()

    def is_user(self, filename):
        """True when code in filename is the user's."""
        verdict = self.verdicts.get(filename)
        if verdict is None:
            verdict = self.verdicts[filename] = self._judge(filename)
        return verdict

    def _judge(self, filename):
        """The uncached verdict of is_user."""
        if not filename or filename.startswith(FROZEN):
            return False
        if self.script and filename == self.script:
            return True
        real = os.path.realpath(filename)
        if real in self.foreign_files or any(real.startswith(f) for f in self.foreign_folders):
            return False
        parts = real.split(os.sep)
        return not any(p in PACKAGE_FOLDERS for p in parts)

    def of_stack(self, frame):
        """(file, line) of the innermost user frame from a live frame outward, else UNKNOWN."""
        while frame is not None:
            code = frame.f_code
            if self.is_user(code.co_filename):
                return code.co_filename, frame.f_lineno
            frame = frame.f_back
        return UNKNOWN

    def of_traceback(self, stack):
        """(file, line) of the innermost user frame of an op's creation stack (outermost frame first)."""
        if stack is None:
            return UNKNOWN
        # Keyed by hash, never by the stack itself: a StackTrace must not outlive its op.
        key = (hash(stack), len(stack))
        known = self.stacks.get(key)
        if known is not None:
            index, where = known
            if index is None:
                return where
            frame = stack[index]
            if (frame.filename, frame.lineno) == where:
                return where
        index, where = self._walk(stack)
        if len(self.stacks) >= MAX_STACKS:
            self.stacks.clear()
        self.stacks[key] = (index, where)
        return where

    def _walk(self, stack):
        """(index, (file, line)) of the innermost user frame of stack, or (None, UNKNOWN)."""
        for i in range(len(stack) - 1, -1, -1):
            frame = stack[i]
            if self.is_user(frame.filename):
                return i, (frame.filename, frame.lineno)
        return None, UNKNOWN
