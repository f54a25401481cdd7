#!/usr/bin/env python3
"""When a lone lane blocked in mbarrier.wait resumes: calibrate/lane_wait_arrival_delay.

The elected thread of warp 0 waits on a barrier while warps 4-11 load shared memory 0, 3, 8 or
20 times and then one or eight of them arrive. Per round this prints the waiter's wait_begin to
wait_end, the last arrival's issue after wait_begin, and wait_end after that arrival, for each
recording given (several runs of one GPU, or one run of each GPU). Then the two numbers the
model's lone-lane wake stands for (model/sm/warp_process.cpp, op_wait):
  mbarrier_lane_wait_min_cycles: the median wait_begin -> wait_end of the rounds whose arrivals
    came first (0 loads: the phase completes ~90 cycles after the wait began), the shortest a
    lone lane's blocked wait lasts;
  mbarrier_lane_wait_resume_cycles: the median last-arrival issue -> wait_end of the other
    rounds, less mbarrier_arrive_cycles (2): how long after the phase completes the lane resumes.

usage (from the repository root):
  traces/analysis/lane_wait_wake.py TRACE.jsonl [TRACE.jsonl ...]
Stdlib only (the scenario's op order is read from the recording's events and labels from the YAML
by a line scan: the program is flat but for one-op loops).
"""
import json, re, statistics, sys

SCENARIO = "scenarios/catalog/calibrate/lane_wait_arrival_delay.yaml"
ARRIVE_CYCLES = 2  # mbarrier_arrive_cycles, the arrival's own issue


def op_labels():
    """Op index -> label, numbering ops in program order with a loop and its body op each one op."""
    labels, index = {}, 0
    for line in open(SCENARIO):
        if not line.startswith("  - {op:"):
            continue
        if "op: loop" in line:
            index += 1  # the loop op; its one body op follows
            m = re.search(r"body: \[\{op: [^}]*label: (\w+)", line)
        else:
            m = re.search(r"label: (\w+)", line)
        if m:
            labels[index] = m.group(1)
        index += 1
    return labels


def rounds(path, labels):
    by_label = {v: k for k, v in labels.items()}
    events = [json.loads(l) for l in open(path)]
    events = [e for e in events if e.get("type") == "event"]
    out = []
    for label, op in sorted(by_label.items(), key=lambda kv: kv[1]):
        if not label.startswith("wait_"):
            continue
        tag = label[len("wait_"):]
        begin = [e["t"] for e in events if e["op"] == op and e["kind"] == "wait_begin"]
        end = [e["t"] for e in events if e["op"] == op and e["kind"] == "wait_end"]
        arrive = [e["t"] for e in events if e["op"] == by_label["arrive_" + tag] and e["kind"] == "issue"]
        if begin and end and arrive:
            out.append((tag, end[0] - begin[0], max(arrive) - begin[0], end[0] - max(arrive)))
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    labels = op_labels()
    early, late = [], []
    print(f"{'round':18} {'begin->end':>10} {'arrival after begin':>20} {'end after arrival':>18}  trace")
    for path in sys.argv[1:]:
        for tag, span, arrival, after in rounds(path, labels):
            print(f"{tag:18} {span:10} {arrival:20} {after:18}  {path}")
            (early if tag.endswith("_0loads") else late).append((span, after))
    if not early or not late:
        sys.exit("lane_wait_wake: no rounds found")
    print(f"mbarrier_lane_wait_min_cycles: median begin->end of the 0-load rounds {statistics.median(s for s, _ in early):g}"
          f" (n={len(early)}, {min(s for s, _ in early)}-{max(s for s, _ in early)})")
    after = [a for _, a in late]
    print(f"mbarrier_lane_wait_resume_cycles: median end after the last arrival of the other rounds {statistics.median(after):g}"
          f" (n={len(after)}, {min(after)}-{max(after)}), less the arrival's {ARRIVE_CYCLES}: {statistics.median(after) - ARRIVE_CYCLES:g}")


main()
