"""Lab 1, wrong: build_fed never returns (a loop that never ends)."""


def build_fed(x, w):
    while True:
        pass
