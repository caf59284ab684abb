"""Resident memory of this process and memory available on the machine (Linux /proc)."""

import os
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
