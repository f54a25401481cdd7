"""Reading a recorded trace or its summary (<name>.summary.json: the header and the memory
records, as device/scripts/gpu_session.sh keeps full-chip runs). Stdlib only."""
import json


def read_trace(path):
    """(header, {global name: bytes}) of one trace or summary file."""
    header, sizes = None, {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if d.get("type") == "header":
                header = d
            elif d.get("type") == "memory" and d.get("space") == "global":
                sizes[d["name"]] = int(d["size"])
    return header, sizes
