"""The page every report renders to: a header line, titled tables with legends, sentences, failed rows."""

_UNITS = (("s", 1.0), ("ms", 1e-3), ("us", 1e-6))


def time_unit(values):
    """One unit for a whole table, chosen from the median magnitude of its times."""
    values = sorted(v for v in values if v)
    if not values:
        return _UNITS[1]
    mid = values[len(values) // 2]
    return next((u for u in _UNITS if mid >= u[1]), _UNITS[-1])


def machine_line(report):
    """Where it ran: TensorFlow, Python, CPUs and platform, as every report's header ends."""
    m = report.machine
    return (f"TensorFlow {report.tf_version}, Python {report.python}, {m.get('cpu_count')} x "
            f"{m.get('cpu_model', '?')}, {m.get('platform', '?')}")


def failures(rows, label):
    """Lines naming each failed row and why."""
    return [f"FAILED {label(r)}: {r.error}" for r in rows if not r.ok]


def page(head, sections=(), title=None, sentences=(), failed=()):
    """head, then each (title, table, legend) section that is not None, then the sentences under title, then failed."""
    parts = [head, ""]
    for name, section in sections:
        if section is not None:
            parts += [name, *(s for s in section if s is not None), ""]
    if title is not None:
        parts += [title] + [f"- {s}" for s in sentences] + [""]
    parts += list(failed)
    return "\n".join(parts).rstrip() + "\n"
