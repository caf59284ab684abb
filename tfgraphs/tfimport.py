"""Import TensorFlow without its C++ start-up chatter on stderr (it is shown only if the import fails)."""

import os
import sys
import tempfile


def import_tensorflow():
    """Import and return the tensorflow module, holding back what its native libraries print while loading."""
    if "tensorflow" in sys.modules:
        return sys.modules["tensorflow"]
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        # TensorFlow 2.21 logs a few lines before absl is initialised, whatever TF_CPP_MIN_LOG_LEVEL says.
        os.dup2(held.fileno(), 2)
        try:
            import tensorflow as tf
        except BaseException:
            os.dup2(saved, 2)
            held.seek(0)
            sys.stderr.write(held.read().decode("utf-8", "replace"))
            raise
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    return tf
