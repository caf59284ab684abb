"""No hint a lab check can print gives away what its sheet asks: no answer to a question, no formula, no solving code.

The strings are read from the check modules' source, not from their objects: every string a module holds is one it
may print (a decorator's hint, a judge's hint for what it saw, a helper's, a seen line), whatever builds it, and
reading them needs no TensorFlow.
"""

import ast
import itertools
import re
from pathlib import Path

import pytest

from tfgraphs.spec import network

LABS = Path(__file__).resolve().parent.parent / "tfgraphs" / "labs"
# The modules holding a lab's checks: each declares them as LAB1 = (...), LAB2 = (...), ...
CHECKS = sorted(p for p in LABS.glob("*.py") if re.search(r"^LAB\d = ", p.read_text(), re.M))


def _numbers(*values):
    """A pattern for each number as a hint could write it: 524287 or 524,287."""
    return "|".join(rf"(?<![\d,.]){v:,}(?![\d,])".replace(",", ",?") for v in values)


# The answers the sheets ask for, and the code their steps ask the student to write: (what it gives away, pattern).
GIVEAWAYS = (
    ("lab 3 question 2: the size TensorFlow refuses", r"2\s*\*\*\s*31|1\s*<<\s*31|<\s*2\b|" + _numbers(
        network.TENSOR_LIMIT, network.TENSOR_LIMIT - 1)),
    ("lab 3 question 2: the largest batch of each dtype", _numbers(
        *((network.TENSOR_LIMIT - 1) // network.example_bytes(d) for d in network.DTYPES))),
    ("lab 3 question 1: bytes per example and how they follow from the shape",
     _numbers(*map(network.example_bytes, network.DTYPES)) + r"|product of|\bx (the )?(dtype|itemsize)\b|dtype size"),
    ("lab 2 question 2: the classic folder's size limit", _numbers(network.FOLDED_CONSTANT_BYTES) + r"|\b10 ?MiB"),
    ("a formula: one named quantity times another", r"\b[A-Za-z_]\w*\s*\*\s*[A-Za-z_(]"),
    ("lab 4 question 3 and step 3: a block's span or the outputs kept", r"[+-]\s*\w+\s*[+-]\s*1\b"),
    # A call is a dotted or snake_case name given arguments, or a name given several: "time(s)" is not one.
    ("code that solves a step: a call with its arguments",
     r"\b[A-Za-z_]\w*[._][\w.]*\((?!\))|\b[A-Za-z_]\w*\((?=[^()]*[,=\[])"),
    ("code that solves a step: a feed_dict or other dict literal", r"\{\s*\w+\s*:\s*\w"),
    ("code that solves a step: an assignment or keyword argument", r"\b\w+\s*=\s*[\w.'\"\[]"),
    ("lab 1 step 3: the placeholder's dtype or shape", r"\btf\.float(16|32|64)\b|\[None,"),
    ("code that solves a step: a shape, strides or ksize written out", r"\[\s*(\d+|None)(\s*,\s*(\d+|None))+\s*\]"),
    ("code that solves a step: a condition written as code", r"\b\w+ is (True|False|None)\b"),
    ("lab 6 step 6: the call that guards the loop, and when", r"\b[Cc]all graph\.finalize\(\)"),
    ("lab 2 step 3: the value a field is set to", r"RewriterConfig\.OFF|OptimizerOptions\.L0"),
    ("lab 3 step 5: the calls and fields that strip a tensor", r"CopyFrom|ClearField|clear tensor_content|\*_val"),
    ("lab 5 questions 2 and 3: what a partial or small warm-up builds", r"only part of|batch of one|one (zero )?image"),
    ("lab 6 question 2 and lab 4 question 1: a cost only a measurement may show",
     r"builds and optimi[sz]es|\brebuilds\b|again on every step"),
    ("lab 1 question 3: whether a fed array is copied", r"\bcop(ies|ied)\b"),
    ("lab 7 question 3: why each evaluation builds an executor", r"\bnew on (each|every)\b"),
    ("lab 6 question 1: which lines of the loop make the ops", r"loss and the optimizer's update"),
)

# Hints the checks once printed, each of which gave an answer away; the first is the one a student found.
BEFORE = (
    "TensorFlow refuses a tensor of 2**31 bytes or more: the largest batch N satisfies N * bytes_per_example < 2**31.",
    "Bytes = number of elements (the product of tensor_shape dims) x dtype size; a tensor written as one repeated "
    "value has an empty tensor_content but still expands to every element.",
    "Copy the GraphDef (CopyFrom), then for each Const clear tensor_content and the *_val fields of "
    "attr['value'].tensor; keep dtype and tensor_shape.",
    "Overlap-save: block i covers input [i*B, i*B + B + K - 1); pad the end with zeros, keep only the first "
    "L - K + 1 outputs.",
    "Stack the blocks of block_len + kernel - 1 samples into a batch of a fixed number of blocks (pad with zero "
    "blocks), so neither the block length nor the batch dimension changes with the input length.",
    "Make X a tf.compat.v1.placeholder(tf.float64, [None, 32, 32, 1]) and put the array in the feed_dict.",
    "X and W are float64 arrays: give the placeholder dtype tf.float64 (x.dtype), the arrays' own, so that conv2d "
    "gets one dtype.",
    "The placeholder's shape fixes the batch: give it shape [None, 32, 32, 1].",
    "Return a feed_dict that maps your placeholder to x itself: {X: x}.",
    "Check strides [1,1,1,1] VALID for conv2d, ksize/strides [1,2,2,1] VALID for avg_pool, then relu.",
    "Create tf.compat.v1.Variable(placeholder, trainable=False); its initializer is fed once with the array.",
    "Step 3 gives each field: rewrite_options.disable_meta_optimizer and constant_folding = "
    "rewriter_config_pb2.RewriterConfig.OFF for Grappler, optimizer_options.opt_level = L0 and do_constant_folding = "
    "False for the classic folder.",
    "Walk run_metadata.step_stats.dev_stats[*].node_stats[*]; the op type is in timeline_label, as in "
    "'conv = Conv2D(X, W)'.",
    "serve() fetches the whole dict, scores and features, fed X: warm up with that same fetch list and feed (a batch "
    "of one zero image is enough), not with only part of it.",
    "Open a new tf.compat.v1.Session for each call, call warm_up() in it only when warm is True, then time one serve() "
    "alone with time.perf_counter() and return the seconds.",
    "Print len(graph.get_operations()) in the loop: every op created inside it is new on every step. Create the loss "
    "and the optimizer's update once, before the loop, and only run them inside it.",
    "A new graph per step hides the growth but builds and optimizes everything again on every step: keep one graph "
    "and one session for the whole loop.",
    "Call graph.finalize() once every op exists, before the training loop's first sess.run.",
    "An array passed to tf.constant or straight to an op (x in tf.linalg.matvec(x, w)) is stored in the graph: load "
    "it once into tf.compat.v1.Variable(placeholder, trainable=False) and feed the array only to the initializer's "
    "run, as lab 1's build_loaded does.",
    "Every op made inside the loop is new on each pass: create the validation loss with the others, before the loop, "
    "and call graph.finalize() before the loop so that the next such op raises (lab 6).",
    "Feeding the same array on every call copies it each time: load it once into a variable, from a placeholder fed "
    "only to the initializer's run, and let the ops read the variable.",
)


def _texts(node):
    """Every text a string expression can print, '{}' for a part known only when it runs; None when not a string."""
    if isinstance(node, ast.Constant):
        return [node.value] if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        return ["".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)]
    if isinstance(node, ast.IfExp):
        body, orelse = _texts(node.body), _texts(node.orelse)
        return None if body is None and orelse is None else (body or []) + (orelse or [])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _texts(node.left), _texts(node.right)
        if left is None and right is None:
            return None
        return [a + b for a, b in itertools.product(left or ["{}"], right or ["{}"])]
    return None


def _docstrings(tree):
    """The docstrings of the module and its functions: a check's is the goal it names, never a hint."""
    holders = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    return {id(h.body[0].value) for h in holders
            if h.body and isinstance(h.body[0], ast.Expr) and isinstance(h.body[0].value, ast.Constant)}


def printable(source):
    """Every text a check module's source can print, each string expression whole and in its parts."""
    tree = ast.parse(source)
    skipped = _docstrings(tree)
    return {t for node in ast.walk(tree) if id(node) not in skipped for t in _texts(node) or ()}


def giveaways(text):
    """What the text gives away, by the patterns it matches."""
    return [what for what, pattern in GIVEAWAYS if re.search(pattern, text)]


@pytest.mark.parametrize("path", CHECKS, ids=[p.stem for p in CHECKS])
def test_no_hint_gives_a_sheets_answer_away(path):
    found = {text: giveaways(text) for text in printable(path.read_text())}
    assert not {t: g for t, g in found.items() if g}


@pytest.mark.parametrize("before", BEFORE, ids=range(len(BEFORE)))
def test_each_hint_that_gave_an_answer_away_is_caught(before):
    assert giveaways(before), before


def test_a_giveaway_is_found_wherever_a_check_builds_its_hint():
    # The student's example as a decorator's hint, and a formula a judge builds from parts.
    source = (f'@hint("{BEFORE[0]}")\ndef max_batch(mod):\n    """max_embedded_batch(dtype) is right"""\n\n\n'
              'def _judge(facts):\n    return False, f"got {facts}", ("" if facts else "Keep the first " + '
              '("L - K + 1" if facts else "all") + " outputs.")\n')
    found = {t for t in printable(source) if giveaways(t)}
    assert BEFORE[0] in found and "Keep the first L - K + 1 outputs." in found, found
    assert "max_embedded_batch(dtype) is right" not in printable(source)


def _decorated_hints(tree):
    """(check name, the texts of its @hint and on_error hints), a module-level name read as its value."""
    named = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
             for t in n.targets if isinstance(t, ast.Name)}
    for f in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        calls = [d for d in f.decorator_list if isinstance(d, ast.Call) and getattr(d.func, "id", "") in
                 ("hint", "on_error")]
        given = [a for c in calls for a in (c.args if c.func.id == "hint" else [p.elts[1] for p in c.args])]
        if calls:
            yield f.name, [_texts(named.get(getattr(a, "id", None), a)) for a in given]


@pytest.mark.parametrize("path", CHECKS, ids=[p.stem for p in CHECKS])
def test_every_check_has_a_hint_and_every_hint_is_read(path):
    tree = ast.parse(path.read_text())
    hints = dict(_decorated_hints(tree))
    labs = [n.value for n in tree.body
            if isinstance(n, ast.Assign) and re.fullmatch(r"LAB\d", getattr(n.targets[0], "id", ""))]
    assert labs and {c.id for lab in labs for c in lab.elts} <= set(hints), path.stem
    seen = printable(path.read_text())
    assert all(t and set(t) <= seen for texts in hints.values() for t in texts), hints
