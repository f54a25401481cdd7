#!/usr/bin/env python3
"""Prints a trace (traces/FORMAT.md, version 1 to 4) as the version 3 trace of the same
run with every image's bytes inline as hex and no hash, spelt the way tmasim's writer
spells it.

compare_model_traces.sh holds traces written before version 3 against ones written after:
the model's simulation did not change with the format, so after this both sides must be
equal byte for byte. What version 3 changed, and what this undoes:
- event lines lose `key`, `"model_only":false` and an empty `detail`;
- the complete_tx credits of one landing (adjacent lines with the same key fields, time
  and barrier) are one event: `bytes` summed, `chunks` counted from 2 on, `tx_count` and
  `pending` those of the last credit (only folded in traces older than version 3);
- a sidecar (version 2 on) is read back into `hex`;
- version 4 hashes images of 1 MiB on with xxh64, not fnv1a64: the hash key is left out of
  every memory line (the bytes, which tmasim's reader checks against it, are compared).
A memory line that holds only a hash (`init_unchanged`) cannot be undone: run the model
with `--memory-bytes all` for a comparison."""
import json
import os
import sys

EVENT_KEYS = ("type", "op", "name", "iters", "cta", "warp", "lane", "kind", "t", "t_ns")


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def event_line(e):
    out = {k: e[k] for k in EVENT_KEYS if k in e}
    if e.get("model_only"):
        out["model_only"] = True
    if e.get("what"):
        out["what"] = e["what"]
    if e.get("detail"):
        out["detail"] = dict(sorted(e["detail"].items()))
    return dumps(out)


def same_landing(a, b):
    if a.get("what") != "complete_tx" or b.get("what") != "complete_tx":
        return False
    fields = ("op", "iters", "cta", "warp", "lane", "kind", "t")
    return all(a[f] == b[f] for f in fields) and a["detail"].get("barrier") == b["detail"].get("barrier")


def fold(events):
    """Adjacent complete_tx credits of one landing as one event (version 3)."""
    out = []
    chunks = 0
    for e in events:
        if out and same_landing(out[-1], e):
            last = out[-1]
            chunks += 1
            detail = last["detail"]
            detail["bytes"] = str(int(detail["bytes"]) + int(e["detail"]["bytes"]))
            detail["chunks"] = str(chunks)
            detail["tx_count"] = e["detail"]["tx_count"]
            detail["pending"] = e["detail"]["pending"]
            continue
        chunks = 1
        out.append(e)
    return out


def memory_line(image, folder):
    if "init_unchanged" in image:
        sys.exit("trace_as_v3.py: an image without bytes (init_unchanged); write it with --memory-bytes all")
    if "sidecar" in image:
        with open(os.path.join(folder, image["sidecar"]), "rb") as sidecar:
            sidecar.seek(image["offset"])
            hex_bytes = sidecar.read(image["size"]).hex()
    else:
        hex_bytes = image["hex"]
    keys = ("type", "name", "space", "cta", "size")
    out = {k: image[k] for k in keys}
    out["hex"] = hex_bytes
    return dumps(out)


def main(path):
    folder = os.path.dirname(path)
    with open(path, encoding="utf-8") as trace:
        lines = trace.read().splitlines()
    header = json.loads(lines[0])
    version = header["version"]
    out = [lines[0].replace('"version":%d,' % version, '"version":3,', 1)]
    events = []
    rest = []
    for line in lines[1:]:
        if line.startswith('{"type":"event"'):
            events.append(json.loads(line))
        elif line.startswith('{"type":"memory"'):
            rest.append(memory_line(json.loads(line), folder))
        else:
            rest.append(line)
    if version < 3:
        events = fold(events)
    out.extend(event_line(e) for e in events)
    out.extend(rest)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
