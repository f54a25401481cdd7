#!/usr/bin/env python3
"""Cluster, DSMEM, st.async, snapshot and satisfied-wait timings in the recorded traces of one
GPU's fitting folders (traces/recorded/SPLIT.yaml; the held-out folders are never read).

Derives the numbers model/arch/<gpu>.yaml cites as "measured: ... cluster_latencies.py":
  remote ops      durations (issue->complete) of shared.load / shared.store / mbarrier.arrive
                  whose scenario op has a `cta:` key (a shared::cluster access or a remote
                  arrive), apart from the local ones; op ids are the scenario's preorder op
                  numbering, read from the catalog YAML (one `op:` per op, loops included)
  cluster.sync    per instance and cluster: the last warp's issue (its arrival) to the first
                  warp's complete (the release); CTAs of one cluster share a clock origin to
                  within a few cycles (their first ops line up), so the difference is meaningful
  cluster.arrive  (relaxed) issue->complete, and how long after it a cluster.wait returned
  st.async        guide/st_async_ring: the sender CTA's last st.async issue to the receiver's
                  first wait_end on `filled`, where the receiver was already waiting
  snapshot        shared.snapshot issue->complete per 16-byte vector of the image
  --model         also: the GPU's mbarrier.wait durations where the model (its arch config)
                  finds the phase already complete (runs build/cli/tmasim): mbarrier_wait_ready_cycles
usage (from the repository root): traces/analysis/cluster_latencies.py [--gpu GPU] [--model]
Stdlib only.
"""
import argparse, collections, json, os, re, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import arch_number  # noqa: E402
from split import split_folders  # noqa: E402

ROOT = "traces/recorded/NVIDIA-H200"


def stats(v):
    v = sorted(v)
    return f"median {statistics.median(v):g} ({v[0]}-{v[-1]}, n={len(v)})" if v else "n=0"


def events(path):
    with open(path) as fh:
        for line in fh:
            e = json.loads(line)
            if e.get("type") == "event" and not e.get("model_only"):
                yield e


def scenario_ops(rel):
    """op id -> (kind, has a cta: key), from the catalog YAML (preorder, one `op:` each)."""
    path = os.path.join("scenarios/catalog", rel + ".yaml")
    text = open(path).read()
    prog = text[text.index("\nprogram:"):]
    starts = [m for m in re.finditer(r"\bop:\s*([A-Za-z0-9_.]+)", prog)]
    ops = {}
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(prog)
        body = prog[m.start():end]
        ops[i] = (m.group(1), re.search(r"(?<![A-Za-z0-9_])cta:", body) is not None)
    cluster = re.search(r"cluster:\s*\[(\d+)", text)
    return ops, int(cluster.group(1)) if cluster else 1


def spans(evs):
    """(op, iters, cta, warp, lane) -> (name, start, end)"""
    st, out = {}, {}
    for e in evs:
        k = (e["op"], tuple(e["iters"]), e["cta"], e["warp"], e["lane"])
        if e["kind"] in ("issue", "wait_begin"):
            st[k] = e["t"]
        elif e["kind"] in ("complete", "wait_end") and k in st:
            out[k] = (e["name"], st[k], e["t"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", action="store_true")
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=["NVIDIA-H200", "NVIDIA-H100-80GB-HBM3"])
    a = ap.parse_args()
    global ROOT
    ROOT = "traces/recorded/" + a.gpu
    fitting = set(split_folders("fitting"))
    remote = collections.defaultdict(list)      # (name, remote?) -> durations
    remote_by = collections.defaultdict(list)   # (name, trace) -> durations, remote only
    sync_release, relaxed_arrive, relaxed_wait_after, snap_per_vec, snap_dur = [], [], [], [], []
    st_async_lat = []
    for d, _, fs in sorted(os.walk(ROOT)):
        for f in sorted(fs):
            if not f.endswith(".jsonl"):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, ROOT)[:-len(".jsonl")]
            if rel.split("/")[0] not in fitting or not os.path.exists(os.path.join("scenarios/catalog", rel + ".yaml")):
                continue
            ops, csize = scenario_ops(rel)
            evs = list(events(path))
            sp = spans(evs)
            for (op, it, cta, w, l), (name, s, e) in sp.items():
                if name in ("shared.load", "shared.store", "mbarrier.arrive", "mbarrier.arrive_expect_tx"):
                    is_remote = ops.get(op, ("", False))[1]
                    remote[(name, is_remote)].append(e - s)
                    if is_remote:
                        remote_by[(name, rel)].append(e - s)
            # cluster barrier
            inst = collections.defaultdict(lambda: {"issue": [], "complete": []})
            for (op, it, cta, w, l), (name, s, e) in sp.items():
                if name in ("cluster.sync", "cluster.arrive", "cluster.wait"):
                    g = inst[(name, op, it, cta // csize)]
                    g["issue"].append(s)
                    g["complete"].append(e)
            for (name, op, it, c), g in sorted(inst.items()):
                if name == "cluster.sync":
                    sync_release.append(min(g["complete"]) - max(g["issue"]))
                elif name == "cluster.arrive":
                    relaxed_arrive += [e - s for s, e in zip(g["issue"], g["complete"])]
                    w = [v for (n2, o2, i2, c2), v in inst.items() if n2 == "cluster.wait" and c2 == c]
                    for wg in w:
                        relaxed_wait_after.append((min(wg["complete"]) - max(g["issue"]),
                                                   min(wg["issue"]) - max(g["issue"])))
            # snapshots: every image in these traces is recorded as a memory line
            sizes = []
            with open(path) as fh:
                for line in fh:
                    if '"space":"snapshot"' in line:
                        sizes.append(json.loads(line)["size"])
            for (op, it, cta, w, l), (name, s, e) in sp.items():
                if name == "shared.snapshot" and sizes:
                    vec = (sizes[0] + 15) // 16
                    snap_dur.append(e - s)
                    snap_per_vec.append(round((e - s - 40) / max(1, vec - 1), 1))
            if rel == "guide/st_async_ring":
                T = collections.defaultdict(list)
                for e in evs:
                    T[(e["op"], tuple(e["iters"]), e["cta"], e["kind"])].append(e["t"])
                for i in range(32):
                    for s in range(8):
                        r = (s + 1) % 8
                        last = max(T[(4, (i,), s, "issue")])
                        wb, we = min(T[(6, (i,), r, "wait_begin")]), min(T[(6, (i,), r, "wait_end")])
                        if wb < last:
                            st_async_lat.append(we - last)
    print("== remote (shared::cluster / peer barrier) vs local op durations, issue->complete")
    for (name, rem), v in sorted(remote.items()):
        print(f"  {name:28s} {'remote' if rem else 'local ':6s} {stats(v)}")
    for (name, rel), v in sorted(remote_by.items()):
        print(f"    remote {name:24s} {rel:42s} {stats(v)}")
    print("== cluster.sync: last arrival (issue) -> first release (complete), per cluster instance")
    print("  ", stats(sync_release))
    print("== cluster.arrive.relaxed issue->complete:", stats(relaxed_arrive))
    print("   its cluster.wait: (last arrival -> first wait complete, last arrival -> wait issue):", relaxed_wait_after)
    print("== st.async (st_async_ring): sender's last issue -> receiver's wait_end, receiver already waiting:")
    print("  ", stats(st_async_lat))
    print("== shared.snapshot issue->complete:", stats(snap_dur))
    print("   (duration - 40) per further 16-byte vector:", stats(snap_per_vec))
    if a.model:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import op_durations as od
        od.ROOT = ROOT  # this GPU's recordings, run on the model with this GPU's arch config
        arch = od.ARCH[a.gpu]
        ready = arch_number(arch, "mbarrier_wait_ready_cycles")
        tmp = tempfile.mkdtemp()
        v = []
        for f in od.trace_files([]):
            mp = od.model_trace(f, tmp, a.tmasim)
            if not mp:
                continue
            d, m = od.durations(f), od.durations(mp)
            # A wait the model finds already complete lasts exactly mbarrier_wait_ready_cycles there.
            v += [dt for k, (n, dt) in d.items() if n == "mbarrier.wait" and k in m and abs(m[k][1] - round(ready)) <= 1]
        print(f"== mbarrier.wait the model (--arch {arch}, ready waits {ready:g} cycles) finds already complete: "
              f"{a.gpu}", stats(v))

if __name__ == "__main__":
    main()
