#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's attention backward timed like attnscope's (bench/kernels_backward.cpp), and the ratios.

Run on the GPU machine in the same job as attnscope_bench_kernels:

    python3 bench/sdpa_backward.py --time refs.json        # PyTorch's medians (needs the GPU)
    attnscope_bench_kernels --benchmark_filter=BM_Backward ... --benchmark_out=ours.json
    python3 bench/sdpa_backward.py --merge refs.json ours.json merged.json   # ratios (no GPU)

Times `torch.autograd.grad` of scaled_dot_product_attention (the backward only: the forward's graph is kept)
for the FlashAttention-2 and cuDNN backends with CUDA events, the L2 flushed by a 256 MiB memset before
every iteration, median of 30 (and a forward + backward training step for the FlashAttention paper's
Figure 2 shape). --merge writes merged.json: attnscope's Google Benchmark JSON with a "references" list (PyTorch's
medians) and a "ratios" list: attnscope's median TFLOP/s over each backend's, per shape, with the same FLOP
convention (backward = 2.5 x the forward's 4 B H N^2 d, halved when causal).
"""
import json
import sys

try:  # only --time needs PyTorch and a GPU
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
except ImportError:
    torch = None

from sdpa_timing import PROTOCOL, median_ms  # noqa: E402 (this script's folder is on sys.path)


def forward_flops(b, h, n, d, causal):
    f = 4.0 * b * h * n * n * d
    return f / 2 if causal else f


def time_case(backend, b, h, n, d, dtype, causal, step):
    q, k, v = (torch.randn(b, h, n, d, device="cuda", dtype=dtype, requires_grad=True) for _ in range(3))
    d_o = torch.randn(b, h, n, d, device="cuda", dtype=dtype)
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    with sdpa_kernel(backends[backend]):
        if step:
            def fn():
                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                torch.autograd.grad(out, (q, k, v), d_o)
        else:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            def fn():
                torch.autograd.grad(out, (q, k, v), d_o, retain_graph=True)
        ms = median_ms(fn)
    flops = forward_flops(b, h, n, d, causal) * (3.5 if step else 2.5)
    return dict(backend=backend, B=b, H=h, N=n, d=d, dtype=str(dtype).split(".")[-1], causal=causal,
                step=step, ms=ms, tflops=flops / ms / 1e9)


def time_references(out_path):
    cases = [(1, 32, 4096, d, dt, c, False) for d in (64, 128) for c in (False, True)
             for dt in (torch.float16, torch.bfloat16)]
    cases += [(64, 16, 1024, 64, torch.float16, False, True), (64, 16, 1024, 64, torch.float16, False, False)]
    refs = []
    for case in cases:
        for backend in ("flash", "cudnn"):
            try:
                r = time_case(backend, *case)
            except Exception as ex:  # a backend that refuses a shape is recorded as such
                r = dict(backend=backend, B=case[0], H=case[1], N=case[2], d=case[3],
                         dtype=str(case[4]).split(".")[-1], causal=case[5], step=case[6], error=str(ex)[:200])
            refs.append(r)
            print(json.dumps(r), flush=True)
    out = dict(torch=torch.__version__, device=torch.cuda.get_device_name(),
               protocol="torch.autograd.grad of F.scaled_dot_product_attention, " + PROTOCOL,
               references=refs)
    json.dump(out, open(out_path, "w"), indent=1)


def merge(refs_path, ours_path, out_path):
    refs = json.load(open(refs_path))
    ours = json.load(open(ours_path))
    ratios = []
    for row in ours.get("benchmarks", []):
        if row.get("aggregate_name") != "median" or not row["name"].startswith("BM_Backward"):
            continue
        args = dict(kv.split(":") for kv in row["run_name"].split("/")[1:] if ":" in kv)
        a = {k: int(v) for k, v in args.items() if v.isdigit()}
        dtype = "bfloat16" if a["bf16"] else "float16"
        for r in refs["references"]:
            if "tflops" not in r:
                continue
            if (r["B"], r["H"], r["N"], r["d"], r["dtype"], int(r["causal"]), int(r["step"])) == (
                    a["B"], a["H"], a["N"], a["d"], dtype, a["causal"], a["step"]):
                ratios.append(dict(attnscope=row["label"], reference=r["backend"],
                                   attnscope_tflops=row["TFLOP_per_s"], reference_tflops=r["tflops"],
                                   ratio=row["TFLOP_per_s"] / r["tflops"]))
    ours["references"] = refs["references"]
    ours["ratios"] = ratios
    ours["context"]["torch"] = refs["torch"]
    ours["context"]["reference_protocol"] = refs["protocol"]
    json.dump(ours, open(out_path, "w"), indent=1)
    for r in ratios:
        print(f"{r['attnscope']:60s} vs {r['reference']:6s}: {r['attnscope_tflops']:7.1f} / "
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
