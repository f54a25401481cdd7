#!/usr/bin/env python3
"""Compile, run and check the Triton/Gluon kernels of this folder; write their PTX fixtures.

usage (on the GPU host, Triton 3.6 for sm_90a):
    /opt/torch/.venv/bin/python3 scenarios/catalog/kernels/triton/compile_ptx.py OUT_DIR [KERNEL...]

For each kernel module (tma_desc_scale, tma_wgmma_matmul, transpose_smem, gluon_tma_mbarrier):
builds its inputs exactly as tmasim's `init: {random: {seed, min, max}}` does (splitmix64,
scenarios/values.cpp), launches it, compares the output with a torch reference (max abs error)
and writes into OUT_DIR:
  <name>.ptx       compiled_kernel.asm["ptx"], two `//` lines on top naming the source and Triton
  <name>.json      entry, num_warps, shared memory, cluster dims, grid, the PTX's .param list with
                   what each param is (pointer, scalar, host CUtensorMap, its shape/strides, the
                   global and profile scratch pointers Triton appends), the CUtensorMap fields
                   the launcher encoded, the global scratch the allocator gave, the inputs'
                   inits and every tensor's FNV-1a 64 hash (as in a tmasim trace's memory line)
  <name>.<tensor>.bin  each tensor's bytes after the run (inputs and outputs)
  <name>.ttgir     Triton's GPU IR (for reading; not a fixture)
  summary.json     versions, GPU, per-kernel status and max error
One kernel's failure is printed with its traceback and does not stop the others.
"""
import importlib
import json
import math
import os
import pathlib
import re
import sys
import time
import traceback

HERE = pathlib.Path(__file__).resolve().parent
KERNELS = ["tma_desc_scale", "tma_wgmma_matmul", "transpose_smem", "gluon_tma_mbarrier"]
MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------- tmasim's deterministic inits
def splitmix_values(seed, count, lo, hi):
    """The doubles tmasim's `random: {seed, min, max}` init gives a float tensor's elements."""
    out = []
    state = seed & MASK64
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        z ^= z >> 31
        unit = float(z >> 11) * (1.0 / 9007199254740992.0)
        out.append(lo + unit * (hi - lo))
    return out


def fnv1a64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & MASK64
    return f"{h:016x}"


def tensor_bytes(torch, t):
    u8 = t.detach().contiguous().cpu().view(torch.uint8).flatten()
    try:
        return u8.numpy().tobytes()
    except Exception:  # a torch without numpy
        return bytes(u8.tolist())


def jsonable(v):
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if hasattr(v, "_asdict"):  # a namedtuple (Triton's KernelMetadata) before the plain tuples
        return jsonable(v._asdict())
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return repr(v)


def metadata_dict(md):
    """Triton's KernelMetadata (a namedtuple) as a dict, whatever its class."""
    for get in (lambda m: m._asdict(), lambda m: dict(vars(m)),
                lambda m: {k: getattr(m, k) for k in dir(m) if not k.startswith("_") and not callable(getattr(m, k))}):
        try:
            d = get(md)
            if isinstance(d, dict) and d:
                return {str(k): jsonable(v) for k, v in d.items()}
        except Exception:
            pass
    return {"repr": repr(md)}


class Ctx:
    """What a kernel module's launch() uses to make tensors and describe its arguments."""

    def __init__(self, torch):
        self.torch = torch
        self.tensors = {}

    def tensor(self, name, dtype, shape, seed=None, lo=None, hi=None, fill=None):
        torch = self.torch
        n = math.prod(shape)
        if fill is not None:
            values, init = [float(fill)] * n, {"fill": fill}
        else:
            values, init = splitmix_values(seed, n, lo, hi), {"random": {"seed": seed, "min": lo, "max": hi}}
        # double -> f32 (-> f16), each rounded to nearest even, as tmasim stores the element.
        t = torch.tensor(values, dtype=torch.float64).to(torch.float32)
        if dtype == "f16":
            t = t.to(torch.float16)
        t = t.reshape(shape).to("cuda")
        self.tensors[name] = {"tensor": t, "type": dtype, "shape": list(shape), "init": init,
                              "init_fnv1a64": fnv1a64(tensor_bytes(torch, t))}
        return t

    def ptr(self, arg, tensor):
        return {"arg": arg, "kind": "pointer", "tensor": tensor}

    def scalar(self, arg, ty, value):
        return {"arg": arg, "kind": "scalar", "type": ty, "value": value}

    def const(self, arg, value):
        return {"arg": arg, "kind": "constexpr", "value": value}

    def desc(self, arg, tensor, block_shape, layout=None):
        t = self.tensors[tensor]
        strides = [math.prod(t["shape"][i + 1:]) for i in range(len(t["shape"]))]
        d = {"arg": arg, "kind": "host_tensor_descriptor", "tensor": tensor, "shape": t["shape"],
             "strides": strides, "block_shape": list(block_shape)}
        if layout:
            d["layout"] = layout
        return d


# ---------------------------------------------------------------- PTX params
SIZES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "b32": 4, "u32": 4, "s32": 4,
         "f32": 4, "b64": 8, "u64": 8, "s64": 8, "f64": 8}


def ptx_entry_params(ptx):
    """[(entry name, [param dicts])] for each .entry of the module, in .param order."""
    out = []
    for m in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)", ptx, re.S):
        params = []
        for line in m.group(2).split(","):
            line = " ".join(line.split())
            if not line:
                continue
            tokens = line.split(" ")
            name, count = re.match(r"(\w+)(?:\[(\d+)\])?", tokens[-1]).groups()
            ty = next((t[1:] for t in tokens[1:-1] if t.startswith(".") and t[1:] in SIZES), "?")
            align = re.search(r"\.align (\d+)", line)
            size = SIZES.get(ty, 0) * (int(count) if count else 1)
            params.append({"name": name, "ptx_type": "." + ty, "bytes": size,
                           "align": int(align.group(1)) if align else SIZES.get(ty, 0),
                           "ptr": ".ptr" in tokens, "text": line})
        out.append((m.group(1), params))
    return out


def annotate_params(params, args, tensordesc_meta):
    """Says, param by param, which argument each PTX param carries (Triton's flattening: a
    pointer or scalar is one param, a constexpr none, a host tensor descriptor its 128-byte
    CUtensorMap then its shape (i32 each) and strides (i64 each); after the arguments Triton
    appends the global scratch pointer and the profile scratch pointer)."""
    notes, i = [], 0
    desc_index = 0

    def take(role, **extra):
        nonlocal i
        if i < len(params):
            p = dict(params[i])
            p.update(role=role, **extra)
            notes.append(p)
            i += 1
            return p
        notes.append({"role": role, "missing_in_ptx": True, **extra})
        return None

    for a in args:
        k = a["kind"]
        if k == "constexpr":
            continue
        if k == "pointer":
            take("pointer", arg=a["arg"], tensor=a["tensor"])
        elif k == "scalar":
            take("scalar", arg=a["arg"], type=a["type"], value=a["value"])
        elif k == "host_tensor_descriptor":
            meta = None
            if tensordesc_meta and desc_index < len(tensordesc_meta):
                meta = tensordesc_meta[desc_index]
            desc_index += 1
            take("host_cutensormap", arg=a["arg"], tensor=a["tensor"], block_shape=a["block_shape"],
                 tensordesc_meta=jsonable(meta))
            rank = len(a["shape"])
            for d in range(rank):
                if i < len(params) and params[i].get("bytes") == 4:
                    take("descriptor_shape", arg=a["arg"], dim=d, value=a["shape"][d])
            for d in range(rank):
                if i < len(params) and params[i].get("bytes") == 8 and not params[i].get("ptr"):
                    take("descriptor_stride", arg=a["arg"], dim=d, value=a["strides"][d])
    extra_roles = ["global_scratch", "profile_scratch"]
    while i < len(params):
        take(extra_roles.pop(0) if extra_roles else "unknown_extra")
    return notes


# ---------------------------------------------------------------- hooks
class Recorder:
    def __init__(self):
        self.alloc_calls = []
        self.tma_calls = []


def install_hooks(torch, triton, rec):
    def alloc(size, alignment, stream):
        rec.alloc_calls.append({"size": int(size), "alignment": int(alignment)})
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc)
    try:
        from triton.runtime import driver
        utils = driver.active.utils
        for name in [n for n in dir(utils) if "tma" in n.lower() and callable(getattr(utils, n))]:
            orig = getattr(utils, name)

            def wrapped(*a, _orig=orig, _name=name, **k):
                r = _orig(*a, **k)
                try:
                    entry = {"fn": _name, "args": jsonable(list(a)), "kwargs": jsonable(k)}
                    try:
                        entry["bytes_hex"] = bytes(memoryview(r)).hex()
                    except Exception:
                        import ctypes
                        entry["pyobject_bytes_hex"] = ctypes.string_at(id(r), min(sys.getsizeof(r), 256)).hex()
                    rec.tma_calls.append(entry)
                except Exception as e:  # recording must never break the launch
                    rec.tma_calls.append({"fn": _name, "record_error": repr(e)})
                return r

            setattr(utils, name, wrapped)
            print(f"hooked driver utils.{name}")
    except Exception as e:
        print("could not hook the TMA descriptor encoder:", repr(e))


# ---------------------------------------------------------------- one kernel
def compile_one(name, out, torch, triton, versions, rec):
    t0 = time.time()
    rec.alloc_calls.clear()
    rec.tma_calls.clear()
    problems = []

    def attempt(what, fn, default=None):
        try:
            return fn()
        except Exception as e:
            traceback.print_exc()
            problems.append(f"{what}: {e!r}")
            print(f"[{name}] {what} failed: {e!r}")
            return default

    mod = importlib.import_module(name)
    ctx = Ctx(torch)
    res = mod.launch(ctx)
    ck = res["compiled"]
    ptx = ck.asm["ptx"]
    # The PTX first: nothing after this may lose it.
    entries = attempt("ptx params", lambda: ptx_entry_params(ptx), [])
    entry, params = entries[0] if entries else ("?", [])
    header = (f"// tmasim fixture: PTX generated by Triton {versions['triton']} for sm_90a on {versions['gpu']}\n"
              f"// from scenarios/catalog/kernels/triton/{name}.py (kernel {entry}) by compile_ptx.py; do not edit.\n")
    (out / f"{name}.ptx").write_text(header + ptx)
    ptx_lines = (header + ptx).count("\n")
    print(f"[{name}] wrote {name}.ptx: entry {entry}, {ptx_lines} lines")
    attempt("ttgir", lambda: (out / f"{name}.ttgir").write_text(ck.asm["ttgir"]))
    md = attempt("metadata", lambda: metadata_dict(ck.metadata), {}) or {}

    tensors, errors = {}, {}

    def record_tensor(tname, t):
        data = tensor_bytes(torch, t["tensor"])
        (out / f"{name}.{tname}.bin").write_bytes(data)
        d = {k: v for k, v in t.items() if k != "tensor"}
        d.update(final_fnv1a64=fnv1a64(data), bytes=len(data),
                 role="output" if tname in res["outputs"] else "input")
        tensors[tname] = d

    def record_error(oname, ref):
        got = ctx.tensors[oname]["tensor"].float()
        ref = ref.float()
        diff = (got - ref).abs()
        errors[oname] = {"max_abs_err": diff.max().item(),
                         "max_rel_err": (diff / ref.abs().clamp_min(1e-30)).max().item(),
                         "equal_to_reference": bool(torch.equal(got, ref))}

    for tname, t in ctx.tensors.items():
        attempt(f"tensor {tname}", lambda: record_tensor(tname, t))
    for oname, ref in res["reference"].items():
        attempt(f"error {oname}", lambda: record_error(oname, ref))

    num_warps = md.get("num_warps")
    grid = list(res["grid"]) + [1] * (3 - len(res["grid"]))
    meta = {
        "source": f"scenarios/catalog/kernels/triton/{name}.py",
        "ptx": f"{name}.ptx",
        "versions": versions,
        "entry": entry,
        "num_warps": num_warps,
        "num_ctas": md.get("num_ctas"),
        "cluster_dims": md.get("cluster_dims"),
        "shared_bytes": md.get("shared"),
        "global_scratch_size": md.get("global_scratch_size"),
        "global_scratch_align": md.get("global_scratch_align"),
        "profile_scratch_size": md.get("profile_scratch_size"),
        "launch": {"grid_xyz": grid, "tmasim_grid_outermost_first": list(reversed(grid)),
                   "block": 32 * num_warps if isinstance(num_warps, int) else None,
                   "dynamic_shared": md.get("shared")},
        "args": res["args"],
        "ptx_params": attempt("annotate", lambda: annotate_params(params, res["args"], md.get("tensordesc_meta")),
                              params),
        "host_tma_encodes": attempt("tma records", lambda: jsonable(rec.tma_calls), []),
        "scratch_allocations": list(rec.alloc_calls),
        "tensors": tensors,
        "errors": errors,
        "ptx_lines": ptx_lines,
        "ptx_entries": [e for e, _ in entries],
        "metadata": md,
        "compile_and_run_s": round(time.time() - t0, 2),
    }
    meta["signature"] = attempt("signature", lambda: jsonable(ck.src.signature))
    meta["constexprs"] = attempt("constexprs", lambda: jsonable(getattr(ck.src, "constexprs", None)))
    meta["problems"] = problems
    (out / f"{name}.json").write_text(json.dumps(meta, indent=1, default=repr) + "\n")

    def report():
        print(f"[{name}] entry {entry}: num_warps {num_warps}, shared {md.get('shared')} B, "
              f"cluster {md.get('cluster_dims')}, global_scratch {md.get('global_scratch_size')}/"
              f"{md.get('global_scratch_align')}, ptx {ptx_lines} lines")
        for p in meta["ptx_params"] or []:
            print(f"    param {p.get('name')} {p.get('ptx_type')} {p.get('bytes')}B align {p.get('align')}: "
                  f"{p.get('role')} {p.get('arg', '')} {p.get('value', '')}")
        for oname, e in errors.items():
            print(f"    {oname}: max abs err {e['max_abs_err']:.3g}, max rel err {e['max_rel_err']:.3g}, "
                  f"equal to reference: {e['equal_to_reference']}")
        if rec.alloc_calls:
            print(f"    allocator calls: {rec.alloc_calls}")
        for c in rec.tma_calls:
            print(f"    host TMA encode: {c.get('fn')} {c.get('args')}")

    attempt("report", report)
    return {"status": "ok" if not problems else "partial", "entry": entry, "errors": errors,
            "ptx_lines": ptx_lines, "problems": problems}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    names = sys.argv[2:] or KERNELS
    sys.path.insert(0, str(HERE))
    import torch
    import triton
    versions = {"triton": triton.__version__, "torch": torch.__version__, "cuda": torch.version.cuda,
                "gpu": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability(0)),
                "python": sys.version.split()[0]}
    print("versions:", json.dumps(versions))
    rec = Recorder()
    install_hooks(torch, triton, rec)
    summary = {"versions": versions, "kernels": {}}
    for name in names:
        try:
            summary["kernels"][name] = compile_one(name, out, torch, triton, versions, rec)
        except Exception as e:
            traceback.print_exc()
            print(f"[{name}] FAILED: {e!r}")
            summary["kernels"][name] = {"status": "failed", "error": repr(e), "traceback": traceback.format_exc()}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, default=repr) + "\n")
    failed = [n for n, s in summary["kernels"].items() if s["status"] == "failed"]
    print(f"{len(names) - len(failed)} of {len(names)} kernels compiled and ran; failed: {failed or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
