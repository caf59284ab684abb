"""Memory and machine readings on every OS: simulated macOS, Windows, no `resource`, no /proc."""

import builtins
import subprocess
import sys
from types import SimpleNamespace

import pytest

from tfgraphs import machine

MB = 2**20


def _no_proc(monkeypatch):
    """Make every open() of a /proc path fail, as on macOS and Windows."""
    real = builtins.open

    def guarded(path, *args, **kwargs):
        if str(path).startswith("/proc"):
            raise AssertionError(f"read {path}")
        return real(path, *args, **kwargs)
    monkeypatch.setattr(builtins, "open", guarded)


def test_readings_on_this_machine_are_sane():
    rss, peak, free = machine.rss_bytes(), machine.peak_rss_bytes(), machine.available_bytes()
    assert 10 * MB < rss <= peak < 1 << 40 and 0 < free < 1 << 44


def test_macos_peak_is_in_bytes(monkeypatch):
    _no_proc(monkeypatch)
    monkeypatch.setattr(sys, "platform", "darwin")
    fake = SimpleNamespace(RUSAGE_SELF=0, getrusage=lambda who: SimpleNamespace(ru_maxrss=300 * MB))
    monkeypatch.setitem(sys.modules, "resource", fake)
    monkeypatch.setattr(machine, "rss_bytes", lambda: 100 * MB)
    assert machine.peak_rss_bytes() == 300 * MB          # not 1024x that, as Linux's KiB would give
    assert machine.cpu_model()


def test_linux_peak_is_in_kib(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    fake = SimpleNamespace(RUSAGE_SELF=0, getrusage=lambda who: SimpleNamespace(ru_maxrss=300 * 1024))
    monkeypatch.setitem(sys.modules, "resource", fake)
    monkeypatch.setattr(machine, "rss_bytes", lambda: 100 * MB)
    assert machine.peak_rss_bytes() == 300 * MB


def test_windows_peak_comes_from_the_working_set(monkeypatch):
    _no_proc(monkeypatch)
    monkeypatch.setattr(sys, "platform", "win32")
    monkeypatch.setitem(sys.modules, "resource", None)   # Windows has no resource module
    info = SimpleNamespace(rss=200 * MB, peak_wset=500 * MB)
    monkeypatch.setattr(machine, "psutil_module", lambda: SimpleNamespace(Process=lambda: SimpleNamespace(
        memory_info=lambda: info)))
    assert machine.peak_rss_bytes() == 500 * MB and machine.rss_bytes() == 200 * MB


def test_without_resource_the_peak_falls_back_to_the_current_size(monkeypatch):
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setitem(sys.modules, "resource", None)
    assert 10 * MB < machine.peak_rss_bytes() < 1 << 40


def test_machine_info_without_proc(monkeypatch):
    _no_proc(monkeypatch)
    monkeypatch.setattr(sys, "platform", "darwin")
    info = machine.machine_info(["/physical_device:CPU:0"])
    assert info["cpu_count"] >= 1 and info["cpu_model"] and info["devices"] == ["/physical_device:CPU:0"]


@pytest.mark.parametrize("command", ["", "compare", "explain", "sweep", "inspect", "shapes", "report", "lab"])
def test_help_without_resource(command):
    code = ("import sys; sys.modules['resource'] = None; from tfgraphs.cli import main; "
            f"main([*{command.split()!r}, '--help'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: tfgraphs")


def test_timing_env_lists_only_what_is_set(monkeypatch):
    for name in machine.TIMING_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TF_NUM_INTRAOP_THREADS", "1")
    monkeypatch.setenv("UNRELATED", "x")
    assert machine.timing_env() == {"TF_NUM_INTRAOP_THREADS": "1"}
