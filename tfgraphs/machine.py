"""Facts about this machine: its CPU and platform, this process's resident memory, the memory still available."""

import os
import platform
import sys
from datetime import datetime, timezone

# Environment variables that change how fast TensorFlow runs; a document records those that are set.
TIMING_ENV = ("TF_ENABLE_ONEDNN_OPTS", "TF_NUM_INTRAOP_THREADS", "TF_NUM_INTEROP_THREADS", "OMP_NUM_THREADS",
              "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "TF_CUDNN_USE_AUTOTUNE", "CUDA_VISIBLE_DEVICES",
              "TF_XLA_FLAGS", "TF_GPU_ALLOCATOR")


def psutil_module():
    """The psutil module, imported when a reading is taken so that --help needs nothing a platform may lack."""
    import psutil
    return psutil


def rss_bytes():
    """Current resident set size of this process."""
    return psutil_module().Process().memory_info().rss


def peak_rss_bytes():
    """Peak resident set size of this process so far, in bytes on every OS."""
    if sys.platform == "win32":
        return psutil_module().Process().memory_info().peak_wset
    try:
        import resource
    except ImportError:    # no getrusage: the current size is the best lower bound of the peak
        return rss_bytes()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # ru_maxrss is in bytes on macOS and in KiB on Linux and the BSDs; it lags the current size by a few pages.
    return max(peak if sys.platform == "darwin" else peak * 1024, rss_bytes())


def available_bytes():
    """What can be allocated without swapping (MemAvailable on Linux)."""
    return psutil_module().virtual_memory().available


def allocatable_bytes():
    """What this process can still allocate: available_bytes(), or less under an address-space limit (ulimit -v)."""
    have = available_bytes()
    try:
        import resource
    except ImportError:
        return have
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return have
    return max(0, min(have, limit - psutil_module().Process().memory_info().vms))


def machine_info(devices=()):
    """Facts about this machine that every row shares."""
    return {"cpu_count": os.cpu_count(), "cpu_model": cpu_model(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(), "devices": list(devices)}


def cpu_model():
    """The CPU's marketing name where the OS tells it, or the architecture."""
    if sys.platform.startswith("linux"):
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            pass
    return platform.processor() or platform.machine()


def timing_env():
    """The timing-relevant environment variables that are set, with their values."""
    return {k: os.environ[k] for k in TIMING_ENV if k in os.environ}


def now_utc():
    """The time now, ISO-8601 in UTC to the second."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def installed_tf_version():
    """The version of the installed tensorflow package, read without importing it; None when there is none."""
    from importlib import metadata
    try:
        return metadata.version("tensorflow")
    except metadata.PackageNotFoundError:
        return None
