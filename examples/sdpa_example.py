#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""PyTorch's FlashAttention-2 under attnscope: scaled_dot_product_attention at B=1, H=32, N=4096, d=64, fp16
(the shape attnscope calls llm-4k), forced onto the FlashAttention backend and annotated, so that

    attnscope profile -- python3 examples/sdpa_example.py --causal --backward

measures PyTorch's flash_fwd_kernel (and with --backward its three backward kernels) and models each with
attnscope's tiled dataflow (docs/kernel-recognition.md).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from attnscope import annotate, annotate_backward  # noqa: E402

DTYPES = {"fp16": "float16", "bf16": "bfloat16"}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--seq", type=int, default=4096, help="query length (and key length unless --seq-kv)")
    p.add_argument("--seq-kv", type=int, default=None, help="key/value length (default: --seq)")
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--dtype", choices=sorted(DTYPES), default="fp16")
    p.add_argument("--causal", action="store_true", help="causal mask (is_causal=True)")
    p.add_argument("--backward", action="store_true", help="also run .backward() through the attention")
    p.add_argument("--warmup", type=int, default=1, help="calls before the measured one (default 1)")
    p.add_argument("--iters", type=int, default=1, help="measured calls (default 1)")
    return p.parse_args(argv)


def require_torch_cuda():
    """torch with a CUDA device and the sdpa_kernel context manager, or exit saying what is missing."""
    try:
        import torch
    except ImportError:
        sys.exit("sdpa_example.py needs PyTorch with CUDA: torch is not installed here (pip install torch)")
    if not torch.cuda.is_available():
        sys.exit(f"sdpa_example.py needs a CUDA GPU: torch {torch.__version__} sees none")
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        sys.exit(f"sdpa_example.py needs torch.nn.attention.sdpa_kernel (PyTorch 2.3 or later), torch is {torch.__version__}")
    return torch, SDPBackend, sdpa_kernel


def main(argv=None):
    args = parse_args(argv)
    torch, SDPBackend, sdpa_kernel = require_torch_cuda()
    import torch.nn.functional as F

    dtype = getattr(torch, DTYPES[args.dtype])
    seq_kv = args.seq_kv or args.seq
    grad = args.backward
    q = torch.randn(args.batch, args.heads, args.seq, args.head_dim, device="cuda", dtype=dtype, requires_grad=grad)
    k = torch.randn(args.batch, args.heads, seq_kv, args.head_dim, device="cuda", dtype=dtype, requires_grad=grad)
    v = torch.randn(args.batch, args.heads, seq_kv, args.head_dim, device="cuda", dtype=dtype, requires_grad=grad)
    d_out = torch.randn(args.batch, args.heads, args.seq, args.head_dim, device="cuda", dtype=dtype)

    for step in range(args.warmup + args.iters):
        phase = "warmup" if step < args.warmup else "measured"
        torch.cuda.nvtx.range_push(f"sdpa_example {phase} {step}")
        # Only the FlashAttention backend: PyTorch raises instead of silently running another kernel.
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION), annotate(q, k, v, causal=args.causal):
            out = F.scaled_dot_product_attention(q, k, v, is_causal=args.causal)
        if args.backward:
            annotate_backward(out, q, k, v, causal=args.causal)
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                out.backward(d_out)
            q.grad = k.grad = v.grad = None
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    mask = " causal" if args.causal else ""
    passes = "forward + backward" if args.backward else "forward"
    print(
        f"sdpa_example: {args.warmup} warm-up + {args.iters} measured {passes} call(s), B={args.batch} H={args.heads} "
        f"Nq={args.seq} Nkv={seq_kv} d={args.head_dim} {args.dtype}{mask}, FlashAttention backend"
    )


if __name__ == "__main__":
    main()
