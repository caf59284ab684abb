"""The ways of getting the same data into the graph, each with the properties explanations read from it."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Variant:
    """One input strategy: how many copies of X its GraphDef holds, and how X reaches the network."""

    name: str
    copies_in_graph: int
    peak_multiple: int       # rough peak memory besides activations, in units of X's bytes (seen on TF 2.21, CPU)
    fed_per_run: bool        # X crosses feed_dict on every run
    loaded_once: bool        # X is fed once into graph state (a variable, an iterator) and never again
    default: bool = True     # measured by compare unless --variants says otherwise

    @property
    def embeds_data(self):
        return self.copies_in_graph > 0


VARIANTS = {
    v.name: v
    for v in (
        Variant("numpy", copies_in_graph=1, peak_multiple=9, fed_per_run=False, loaded_once=False),
        Variant("constant", copies_in_graph=1, peak_multiple=9, fed_per_run=False, loaded_once=False),
        Variant("placeholder", copies_in_graph=0, peak_multiple=3, fed_per_run=True, loaded_once=False),
        Variant("variable", copies_in_graph=0, peak_multiple=3, fed_per_run=False, loaded_once=True),
        # The one-shot iterator keeps a second copy of X inside its dataset function (tests pin this).
        Variant("dataset-embedded", copies_in_graph=2, peak_multiple=18, fed_per_run=False, loaded_once=False,
                default=False),
        Variant("dataset-fed", copies_in_graph=0, peak_multiple=6, fed_per_run=False, loaded_once=True, default=False),
    )
}
COMPARED = tuple(name for name, v in VARIANTS.items() if v.default)
