#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's attention forward timed like attnscope's (bench/kernels_attention.cpp), and the ratios.

Run on the GPU machine in the same job as attnscope_bench_kernels:

    python3 bench/sdpa_forward.py --time refs.json        # PyTorch's medians (needs the GPU)
    attnscope_bench_kernels --benchmark_filter='BM_Hopper|BM_Attention' ... --benchmark_out=ours.json
    python3 bench/sdpa_forward.py --merge refs.json ours.json merged.json   # ratios (no GPU)

Times F.scaled_dot_product_attention for the FlashAttention-2 and cuDNN backends with CUDA events, the L2
flushed by a 256 MiB memset before every iteration, median of 30, at B 1, H 32: N 4096 with d 64 and 128,
fp16 and bf16, causal and not, and N 16384 d 64. --merge writes merged.json: attnscope's Google Benchmark JSON
with a "references" list (PyTorch's medians) and a "ratios" list: for each shape, the fastest configuration of
each attnscope kernel family (hopper, tiled) over each backend's TFLOP/s, with the same FLOP convention
(4 B H N^2 d, halved when causal). Every configuration's own numbers stay in the benchmark list.
"""
import json
import sys

try:  # only --time needs PyTorch and a GPU
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    torch = None

FLUSH = None


def flush_buffer():
    global FLUSH
    if FLUSH is None:
        FLUSH = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    return FLUSH


def median_ms(fn, iterations=30):
    fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(iterations):
        flush_buffer().zero_()
        torch.cuda.synchronize()
        start.record()
        fn()
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    times.sort()
    return times[len(times) // 2]


def flops(b, h, n, d, causal):
    f = 4.0 * b * h * n * n * d
    return f / 2 if causal else f


def time_case(backend, b, h, n, d, dtype, causal):
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=dtype) for _ in range(3))
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    with sdpa_kernel(backends[backend]):
        ms = median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
    return dict(backend=backend, B=b, H=h, N=n, d=d, dtype=str(dtype).split(".")[-1], causal=causal, ms=ms,
                tflops=flops(b, h, n, d, causal) / ms / 1e9)


def cases():
    out = [(1, 32, 4096, d, dt, c) for d in (64, 128) for dt in (torch.float16, torch.bfloat16)
           for c in (False, True)]
    return out + [(1, 32, 16384, 64, torch.float16, c) for c in (False, True)]


def time_references(out_path):
    refs = []
    for case in cases():
        for backend in ("flash", "cudnn"):
            try:
                r = time_case(backend, *case)
            except Exception as ex:  # a backend that refuses a shape is recorded as such
                r = dict(backend=backend, B=case[0], H=case[1], N=case[2], d=case[3],
                         dtype=str(case[4]).split(".")[-1], causal=case[5], error=str(ex)[:200])
            refs.append(r)
            print(json.dumps(r), flush=True)
    out = dict(torch=torch.__version__, device=torch.cuda.get_device_name(),
               protocol=("F.scaled_dot_product_attention under sdpa_kernel(backend), CUDA events, "
                         "256 MiB memset before every iteration, median of 30"),
               references=refs)
    json.dump(out, open(out_path, "w"), indent=1)


def shape_of(run_name):
    """(family, N, d, dtype, causal) of a BM_Hopper or BM_Attention (tiled) median row, else None."""
    parts = run_name.split("/")
    family = {"BM_Hopper": "hopper", "BM_Attention": "tiled"}.get(parts[0])
    args = dict(p.split(":", 1) for p in parts[1:] if ":" in p)
    if family is None or args.get("naive", "0") != "0":
        return None
    return (family, int(args["N"]), int(args["d"]), "bfloat16" if args["bf16"] == "1" else "float16",
            args["causal"] == "1")


def merge(refs_path, ours_path, out_path):
    refs = json.load(open(refs_path))
    ours = json.load(open(ours_path))
    best = {}  # (family, N, d, dtype, causal) -> fastest median row
    for row in ours.get("benchmarks", []):
        if row.get("aggregate_name") != "median":
            continue
        key = shape_of(row["run_name"])
        if key and (key not in best or row["TFLOP_per_s"] > best[key]["TFLOP_per_s"]):
            best[key] = row
    ratios = []
    for (family, n, d, dtype, causal), row in sorted(best.items()):
        for r in refs["references"]:
            if "tflops" in r and (r["B"], r["H"], r["N"], r["d"], r["dtype"], r["causal"]) == (
                    1, 32, n, d, dtype, causal):
                ratios.append(dict(attnscope=row["label"], family=family, N=n, d=d, dtype=dtype, causal=causal,
                                   reference=r["backend"], attnscope_tflops=row["TFLOP_per_s"],
                                   reference_tflops=r["tflops"], ratio=row["TFLOP_per_s"] / r["tflops"]))
    ours["references"] = refs["references"]
    ours["ratios"] = ratios
    ours["context"]["torch"] = refs["torch"]
    ours["context"]["reference_protocol"] = refs["protocol"]
    json.dump(ours, open(out_path, "w"), indent=1)
    for r in ratios:
        print(f"{r['attnscope']:75s} vs {r['reference']:6s}: {r['attnscope_tflops']:7.1f} / "
              f"{r['reference_tflops']:7.1f} TFLOP/s = {r['ratio']:.3f}")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--time":
        time_references(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "--merge":
        merge(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
