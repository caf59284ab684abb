"""tfgraphs.shapes(): what each new input length costs, in every way of running a 1-D convolution."""

from tfgraphs.api.options import names, whole
from tfgraphs.api.running import check_outputs, measure
from tfgraphs.jobs import shapes as job
from tfgraphs.jobs.shapes import Config
from tfgraphs.spec.shapes import MODES
SIZES = ("start", "count", "batch", "channels", "filters", "kernel", "block", "passes")


def shapes(start=10000, count=30, batch=10, channels=200, filters=100, kernel=10, block=1024, passes=2,
           modes=("eager", "keras", "function", "function-relaxed", "function-signature", "graph", "blocked"),
           switch_modes=None, seed=0, timeout=None, quiet=False, json=None, csv=None, plot=None):
    """Run each mode over many input lengths in fresh workers; switch_modes None: the default ones in modes."""
    check_outputs(json, csv, plot)
    given = locals()
    sizes = {name: whole(name, given[name]) for name in SIZES}
    modes = names("modes", modes, MODES, "mode")
    if switch_modes is None:
        # The default only names modes that ran; a switch mode the user names must be in modes (plan refuses).
        switch_modes = tuple(m for m in Config.switch_modes if m in modes)
    elif switch_modes in ("none", (), []):
        switch_modes = ()
    else:
        switch_modes = names("switch_modes", switch_modes, MODES, "mode")
    config = Config(**sizes, seed=whole("seed", seed, least=0), modes=modes, switch_modes=switch_modes)
    return measure(job, config, timeout=timeout, quiet=quiet, json=json, csv=csv, plot=plot)
