"""Course labs: a sheet, a starter and a notebook each in course/, and their checkers (`tfgraphs lab check N PATH`)."""

LABS = {
    1: "Feed, don't embed: a placeholder graph and a variable graph",
    2: "What the first run pays for: session presets and traced ops",
    3: "Graph bloat: Const bytes, the 2 GiB limit, stripping constants",
    4: "One shape only: blocked 1-D convolution",
    5: "Warm before serving: build the executor the first request needs",
    6: "A graph that grows: fix a leaky training loop and guard it with finalize()",
    7: "Watch your own script: fix what `tfgraphs watch` flags",
}


def check(number, namespace=None, timeout=60.0):
    """In a notebook: print lab N's checks of the definitions in namespace (default: the caller's globals)."""
    import sys

    from tfgraphs.labs.notebook import check as check_namespace

    if namespace is None:
        namespace = sys._getframe(1).f_globals
    check_namespace(number, namespace, timeout)
