"""The Python API: one function per command, each checking its options as the command line does and returning a
Report. `tfgraphs` re-exports them, so `tfgraphs.compare(batch=300)` is the way in."""
