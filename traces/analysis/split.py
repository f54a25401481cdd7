"""The recorded fitting / held-out split (traces/recorded/SPLIT.yaml), for the analysis scripts.

Read without a YAML module (the scripts are stdlib only): SPLIT.yaml keeps each list a flow
list, `key: [a, b, ...]`, possibly over several lines.
"""
import os


def split_folders(which, path="traces/recorded/SPLIT.yaml"):
    """The catalog folders listed under `which` ("fitting", "held_out" or "all": both)."""
    text = open(path).read()
    lists = {}
    for key in ("fitting", "held_out"):
        start = text.index("\n" + key + ":") + len(key) + 2
        body = text[text.index("[", start) + 1:text.index("]", start)]
        lists[key] = [f.strip() for f in body.split(",") if f.strip()]
    return lists["fitting"] + lists["held_out"] if which == "all" else lists[which]


def split_traces(gpu, which):
    """(folder, name, path) of every recorded trace traces/recorded/<gpu>/<folder>/<name>.jsonl in
    the folders of `which`, in folder then name order."""
    root = os.path.join("traces/recorded", gpu)
    for folder in split_folders(which):
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".jsonl"):
                yield folder, f[:-len(".jsonl")], os.path.join(d, f)
