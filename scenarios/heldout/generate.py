#!/usr/bin/env python3
"""The blind held-out set's generator (issue 37): scenarios no number of the model was fitted to.

Committed before the set exists; its seed is drawn after the model's arch configs are frozen in
a commit (scenarios/heldout/README.md says how), the set is recorded once on each GPU, and the
model is scored on it only afterwards (traces/analysis/model_error_table.py --split blind).

Each scenario is one class with parameters drawn from that class's space by random.Random of
(seed, index): the same seed gives byte-identical files. The classes are the shapes of the
project's own catalog scenarios (bench/tma_stream, bench/bulk_stream, bank/stride_*) over
ranges wider than any fitted: CTA counts from one SM to the full chip, tensors inside and
beyond L2, bank strides and warp counts the calibration never ran.

usage: scenarios/heldout/generate.py --seed N --count 60 --out scenarios/catalog/blind
Stdlib only.
"""
import argparse, os, random


def ring_program(stages, tiles, nbytes, load):
    """The stream's program: init each stage's barrier, fill the ring, then per tile wait, release
    (a sync) and refill, then drain. `load(stage, tile)` is the load op without its closing brace
    (the refill adds a label)."""
    d = tiles - stages
    return f"""program:
  - op: loop
    var: s
    count: {stages}
    body:
      - {{op: mbarrier.init, barrier: "full[s]", count: 1, by: thread0}}
  - {{op: sync}}
  - op: loop
    var: s
    count: {stages}
    body:
      - {{op: mbarrier.arrive_expect_tx, barrier: "full[s]", bytes: {nbytes}, by: elected}}
      - {load("s", "s")}}}
  - op: loop
    var: t
    count: {d}
    body:
      - {{op: mbarrier.wait, barrier: "full[t%{stages}]", parity: "(t/{stages})%2", label: wait}}
      - {{op: sync, label: release}}
      - {{op: mbarrier.arrive_expect_tx, barrier: "full[t%{stages}]", bytes: {nbytes}, by: elected}}
      - {load(f"t%{stages}", f"(t+{stages})")}, label: refill}}
  - op: loop
    var: d
    count: {stages}
    body:
      - {{op: mbarrier.wait, barrier: "full[(d+{d})%{stages}]", parity: "((d+{d})/{stages})%2", label: drain}}
      - {{op: sync}}
"""


def tma_stream(rng):
    stages = rng.choice([2, 3, 4])
    box = rng.choice([16, 32, 64])
    tiles = rng.choice([8, 12, 16, 24, 32])
    ctas = rng.choice([1, 2, 8, 16, 33, 66, 132])
    swizzle = rng.choice(["none", "128B"])
    p = dict(stages=stages, box=box, tiles=tiles, ctas=ctas, swizzle=swizzle)
    bytes_ = box * 128
    body = f"""summary: >
  TMA stream: {stages} stages of {box} x 32 f32 (swizzle {swizzle}), {tiles} tiles per CTA, {ctas} CTAs,
  one elected producer arming each stage with expect_tx, every thread waiting with parity, a sync
  releasing the stage.
arch: sm_90
launch: {{grid: [{ctas}], block: 128}}
global:
  src: {{type: f32, shape: [{ctas * tiles * box}, 32], init: iota}}
tensormaps:
  tile_map: {{tensor: src, box: [{box}, 32], swizzle: {swizzle}}}
shared:
  stage: {{type: f32, shape: [{box}, 32], align: 1024, array: {stages}}}
barriers:
  full: {{array: {stages}}}
"""+ ring_program(stages, tiles, bytes_,
                         lambda stage, tile: f'{{op: tma.load, map: tile_map, coords: ["cta*{tiles * box} + {tile}*{box}", 0], dst: "stage[{stage}]", barrier: "full[{stage}]", by: elected')
    return p, body


def bulk_stream(rng):
    stages = rng.choice([2, 3, 4])
    size = rng.choice([2048, 4096, 8192, 16384])
    tiles = rng.choice([8, 12, 16, 24])
    ctas = rng.choice([1, 4, 16, 33, 66, 132])
    p = dict(stages=stages, bytes=size, tiles=tiles, ctas=ctas)
    words = size // 4
    body = f"""summary: >
  Bulk-copy stream: {stages} stages of {size} bytes (cp.async.bulk), {tiles} copies per CTA, {ctas} CTAs,
  one elected producer arming each stage with expect_tx, every thread waiting with parity, a sync
  releasing the stage.
arch: sm_90
launch: {{grid: [{ctas}], block: 128}}
global:
  src: {{type: f32, shape: [{ctas * tiles * words}], init: iota}}
shared:
  stage: {{type: f32, shape: [{words}], align: 128, array: {stages}}}
barriers:
  full: {{array: {stages}}}
"""+ ring_program(stages, tiles, size,
                         lambda stage, tile: f'{{op: bulk.load, global: src, offset: "cta*{tiles * words} + {tile}*{words}", bytes: {size}, dst: "stage[{stage}]", barrier: "full[{stage}]", by: elected')
    return p, body


def bank_stride(rng):
    stride = rng.choice([1, 2, 3, 4, 5, 8, 12, 16, 24, 32])
    block = rng.choice([32, 64, 128, 256])
    loads = rng.choice([4, 8, 16, 32])
    p = dict(stride=stride, block=block, loads=loads)
    body = f"""summary: >
  Shared-memory loads of 4-byte words with a stride of {stride} words, {loads} times over, by {block // 32}
  warp(s): lane l reads word l*{stride} (bank (l*{stride}) % 32).
arch: sm_90
launch: {{grid: [1], block: {block}}}
shared:
  words: {{type: u8, shape: [{32 * stride * 4 + 128}], align: 128}}
program:
  - op: loop
    var: r
    count: {loads}
    body:
      - {{op: shared.load, buffer: words, index: "lane*{stride}*4", width: 4, label: strided}}
"""
    return p, body


CLASSES = [tma_stream, bulk_stream, bank_stride]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--count", type=int, default=60)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if os.path.exists(args.out) and os.listdir(args.out):
        raise SystemExit(f"{args.out} is not empty: a blind set is generated once")
    os.makedirs(args.out, exist_ok=True)
    for i in range(args.count):
        cls = CLASSES[i % len(CLASSES)]
        rng = random.Random(args.seed * 100003 + i)
        params, body = cls(rng)
        name = f"{i:03d}_{cls.__name__}"
        text = (f"# Generated by scenarios/heldout/generate.py --seed {args.seed} (index {i}, class {cls.__name__}):\n"
                f"# {', '.join(f'{k}={v}' for k, v in params.items())}. Blind held-out: never fitted (README there).\n"
                f"scenario: blind_{name}\n" + body.replace("arch: sm_90",
                f"source: \"scenarios/heldout/generate.py --seed {args.seed}\"\narch: sm_90", 1) +
                "expect:\n  outcome: ok\n")
        with open(os.path.join(args.out, name + ".yaml"), "w") as fh:
            fh.write(text)
    print(f"{args.count} scenarios in {args.out} (seed {args.seed})")


if __name__ == "__main__":
    main()
