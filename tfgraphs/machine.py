"""Facts about this machine: its CPU and platform, this process's resident memory, the memory still available."""

import os
import platform
import resource

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes():
    """Current resident set size of this process."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE


def peak_rss_bytes():
    """Peak resident set size of this process so far (ru_maxrss is in KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def available_bytes():
    """MemAvailable from /proc/meminfo: what can be allocated without swapping."""
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise OSError("MemAvailable not found in /proc/meminfo")


def machine_info(devices=()):
    """Facts about this machine that every row shares."""
    return {"cpu_count": os.cpu_count(), "cpu_model": _cpu_model(), "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(), "devices": list(devices)}


def _cpu_model():
    """The CPU's marketing name from /proc/cpuinfo, or the architecture where there is none."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()
