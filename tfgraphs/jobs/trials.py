"""Every task run K times, each time in a fresh worker, in an order that rotates so no task always goes first."""

from tfgraphs.jobs import runner


def rotated(items, k):
    """items rotated left by k, so every item takes every position across trials."""
    items = list(items)
    if not items:
        return items
    k %= len(items)
    return items[k:] + items[:k]


def run_trials(tasks, trials, label, progress, timeout=None, run=None, full=None):
    """{task: [document per trial]} and every document in the order run; label(task) names a task in progress.

    run(task, label, progress, timeout) runs one worker (runner.run_worker unless given). The first `full` trials
    (all unless given) run each task as it is; the others run task.headline(), the phases up to the first run.
    """
    docs = {task: [] for task in tasks}
    ran = []
    for trial in range(trials):
        for task in rotated(tasks, trial):
            name = label(task) + (f" trial {trial + 1}/{trials}" if trials > 1 else "")
            asked = task if full is None or trial < full else task.headline()
            doc = (run or runner.run_worker)(asked, name, progress, timeout)
            docs[task].append(doc)
            ran.append(doc)
    return docs, ran
