"""A scenario's op instances in the executor's order, and a recording's per-warp op spans.

Shared by the scripts that look at what a warp does between the ops it executes
(skipped_ops.py, elected_passes.py). Stdlib only.
"""
import collections, json


def instances(program, iters=(), ids=None, out=None):
    """(op id, loop indices, op) for every op instance in program order, loops written out
    with constant counts (a count that is not a number raises ValueError)."""
    ids = [0] if ids is None else ids
    out = [] if out is None else out
    for op in program:
        op_id = ids[0]
        ids[0] += 1
        if op.get("op") == "loop":
            body_first = ids[0]
            for k in range(int(op["count"])):
                ids[0] = body_first
                instances(op["body"], tuple(iters) + (k,), ids, out)
        else:
            out.append((op_id, tuple(iters), op))
    return out


def warp_spans(path, cta=0):
    """{warp: {(op, iters): {"b": begin, "e": end}}} of one CTA of a trace, or None for a
    trace not at level all."""
    spans = collections.defaultdict(dict)
    with open(path) as fh:
        if json.loads(fh.readline()).get("extra", {}).get("trace_level", "all") != "all":
            return None
        for line in fh:
            e = json.loads(line)
            if e.get("type") != "event" or e["cta"] != cta or e.get("model_only"):
                continue
            s = spans[e["warp"]].setdefault((e["op"], tuple(e["iters"])), {})
            if e["kind"] in ("issue", "wait_begin"):
                s.setdefault("b", e["t"])
            elif e["kind"] in ("complete", "wait_end"):
                s["e"] = e["t"]
    return spans
