"""Session presets that switch graph optimizers off, to see what the first run pays for."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    """A session config by what it switches off."""

    name: str
    description: str
    grappler: bool = True    # Grappler's meta optimizer runs
    folding: bool = True     # Grappler's and the classic optimizer's constant folding run (off: L0, so CSE off too)


PRESETS = {
    p.name: p
    for p in (
        Preset("default", "TensorFlow's default session config"),
        Preset("no-grappler", "Grappler off (rewrite_options.disable_meta_optimizer)", grappler=False),
        Preset("no-folding", "Grappler constant folding off and the classic optimizer at OptimizerOptions.L0, "
               "which turns off its constant folding and its common-subexpression elimination (CSE)", folding=False),
        Preset("bare", "both: Grappler off, and the classic optimizer at L0 (no constant folding, no CSE)",
               grappler=False, folding=False),
    )
}
