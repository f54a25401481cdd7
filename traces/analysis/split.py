"""The recorded fitting / held-out split (traces/recorded/SPLIT.yaml), for the analysis scripts.

Read without a YAML module (the scripts are stdlib only): SPLIT.yaml keeps each list a flow
list, `key: [a, b, ...]`, possibly over several lines.
"""
import os


def split_folders(which, path="traces/recorded/SPLIT.yaml"):
    """The catalog folders listed under `which` ("fitting", "held_out", "blind" or "all": the
    first two, which judge the fit together as before the blind set existed)."""
    text = open(path).read()
    lists = {}
    for key in ("fitting", "held_out", "blind", "blind_excluded"):
        start = text.index("\n" + key + ":") + len(key) + 2
        body = text[text.index("[", start) + 1:text.index("]", start)]
        lists[key] = [f.strip() for f in body.split(",") if f.strip()]
    return lists["fitting"] + lists["held_out"] if which == "all" else lists[which]


def split_traces(gpu, which):
    """(folder, name, path) of every recorded trace traces/recorded/<gpu>/<folder>/<name>.jsonl in
    the folders of `which`, in folder then name order; for the blind split, without the scenarios
    `blind_excluded` lists (drawn equal to a fitting scenario: not blind)."""
    root = os.path.join("traces/recorded", gpu)
    excluded = set(split_folders("blind_excluded")) if which == "blind" else set()
    for folder in split_folders(which):
        d = os.path.join(root, folder)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith(".jsonl") and folder + "/" + f[:-len(".jsonl")] not in excluded:
                yield folder, f[:-len(".jsonl")], os.path.join(d, f)
