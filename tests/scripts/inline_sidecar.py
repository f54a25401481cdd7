#!/usr/bin/env python3
"""Prints a version 2 trace (traces/FORMAT.md) as the version 1 trace of the same run: each
memory line that names a sidecar gets its bytes back as inline hex. compare_model_traces.sh
uses it to hold traces written before the sidecar existed against ones written after."""
import json
import os
import sys


def main(path):
    folder = os.path.dirname(path)
    with open(path, encoding="utf-8") as trace:
        for number, line in enumerate(trace):
            if number == 0:
                line = line.replace('"version":2,', '"version":1,', 1)
            elif line.startswith('{"type":"memory"') and '"sidecar":' in line:
                image = json.loads(line)
                with open(os.path.join(folder, image.pop("sidecar")), "rb") as sidecar:
                    sidecar.seek(image.pop("offset"))
                    image["hex"] = sidecar.read(image["size"]).hex()
                line = json.dumps(image, separators=(",", ":"), ensure_ascii=False) + "\n"
            sys.stdout.write(line)


if __name__ == "__main__":
    main(sys.argv[1])
