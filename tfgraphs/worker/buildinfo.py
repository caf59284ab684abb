"""What the TensorFlow a worker imported was built with, and what it has switched on."""


def build_facts(tf):
    """{"cuda_build", "onednn"}: a CUDA build or not, and whether oneDNN's CPU kernels are on in this process."""
    from tensorflow.python.util import _pywrap_util_port   # TensorFlow's own answer; there is no public one

    return {"cuda_build": bool(tf.test.is_built_with_cuda()), "onednn": bool(_pywrap_util_port.IsMklEnabled())}
