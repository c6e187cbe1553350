#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A block-level fused attention forward in Triton, checked against PyTorch's scaled_dot_product_attention
and annotated for attnscope:

    attnscope profile -- python3 examples/triton_attention.py --causal --block-m 128 --block-n 64

One program per (q tile of BLOCK_M rows, head, batch), launched on the grid (ceil(Nq / BLOCK_M), H, B) like
attnscope's tiled kernel; it keeps its Q tile, walks the K and V blocks of BLOCK_N keys with the online
softmax (running row maximum and sum in fp32, the accumulator rescaled when the maximum grows) and writes O
once. With the causal mask (bottom-right aligned: row i sees key j iff j <= i + Nkv - Nq) it stops after
the block holding its last row's diagonal. attnscope models it as its tiled dataflow with Br = BLOCK_M,
Bc = BLOCK_N, warps = num_warps and stages = num_stages (docs/kernel-recognition.md says what that assumes):
the annotation carries the shape, and a second range carries the tile, which a Triton kernel's name does
not.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

from attnscope import annotate  # noqa: E402

try:
    import triton
    import triton.language as tl
except ImportError:
    triton = None

DTYPES = {"fp16": "float16", "bf16": "bfloat16"}

if triton is not None:

    @triton.jit
    def attnscope_attention_fwd(
        Q, K, V, O,
        q_sb, q_sh, q_sn, q_sd,
        k_sb, k_sh, k_sn, k_sd,
        v_sb, v_sh, v_sn, v_sd,
        o_sb, o_sh, o_sn, o_sd,
        seq_q, seq_kv, scale_log2,
        HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr,
    ):  # fmt: skip
        q_tile = tl.program_id(0)
        head = tl.program_id(1)
        batch = tl.program_id(2)
        rows = q_tile * BLOCK_M + tl.arange(0, BLOCK_M)
        dims = tl.arange(0, HEAD_DIM)
        row_ok = rows < seq_q

        q_tile_ptr = Q + batch * q_sb + head * q_sh + rows[:, None] * q_sn + dims[None, :] * q_sd
        q = tl.load(q_tile_ptr, mask=row_ok[:, None], other=0.0)
        k_base = K + batch * k_sb + head * k_sh
        v_base = V + batch * v_sb + head * v_sh

        row_max = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
        row_sum = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

        # Keys this tile can see: all of them, or (causal) up to its last row's diagonal.
        key_end = seq_kv
        if CAUSAL:
            key_end = tl.minimum(seq_kv, tl.maximum(0, (q_tile + 1) * BLOCK_M + seq_kv - seq_q))
        for first_key in range(0, key_end, BLOCK_N):
            keys = first_key + tl.arange(0, BLOCK_N)
            key_ok = keys < seq_kv
            k_t = tl.load(k_base + keys[None, :] * k_sn + dims[:, None] * k_sd, mask=key_ok[None, :], other=0.0)
            # Scores in the log2 domain: exp(x * scale) = exp2(x * scale * log2 e).
            scores = tl.dot(q, k_t) * scale_log2
            visible = key_ok[None, :]
            if CAUSAL:
                visible = visible & (keys[None, :] <= rows[:, None] + (seq_kv - seq_q))
            scores = tl.where(visible, scores, float("-inf"))

            new_max = tl.maximum(row_max, tl.max(scores, 1))
            # A row that has seen no visible key yet keeps -inf; exponentiate against 0 instead of -inf there.
            pivot = tl.where(new_max == float("-inf"), 0.0, new_max)
            p = tl.math.exp2(scores - pivot[:, None])
            rescale = tl.math.exp2(row_max - pivot)
            row_sum = row_sum * rescale + tl.sum(p, 1)
            v = tl.load(v_base + keys[:, None] * v_sn + dims[None, :] * v_sd, mask=key_ok[:, None], other=0.0)
            acc = acc * rescale[:, None] + tl.dot(p.to(v.dtype), v)
            row_max = new_max

        # Rows that see no key at all (causal with Nq > Nkv) write zeros.
        out = acc / tl.where(row_sum == 0.0, 1.0, row_sum)[:, None]
        o_tile_ptr = O + batch * o_sb + head * o_sh + rows[:, None] * o_sn + dims[None, :] * o_sd
        tl.store(o_tile_ptr, out.to(O.dtype.element_ty), mask=row_ok[:, None])


def attention(q, k, v, causal, block_m, block_n, num_warps, num_stages):
    """O = softmax(Q K^T / sqrt(d)) V for q [B, H, Nq, d], k and v [B, H, Nkv, d], with the Triton kernel."""
    batch, heads, seq_q, head_dim = q.shape
    seq_kv = k.shape[2]
    out = q.new_empty(q.shape)
    grid = (triton.cdiv(seq_q, block_m), heads, batch)
    attnscope_attention_fwd[grid](
        q, k, v, out,
        *q.stride(), *k.stride(), *v.stride(), *out.stride(),
        seq_q, seq_kv, math.log2(math.e) / math.sqrt(head_dim),
        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=causal,
        num_warps=num_warps, num_stages=num_stages,
    )  # fmt: skip
    return out


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--seq", type=int, default=4096, help="query length (and key length unless --seq-kv)")
    p.add_argument("--seq-kv", type=int, default=None)
    p.add_argument("--head-dim", type=int, default=64, help="a power of two (tl.arange needs one)")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="fp16")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--block-m", type=int, default=128, help="BLOCK_M: query rows per program (a power of two)")
    p.add_argument("--block-n", type=int, default=64, help="BLOCK_N: keys per step (a power of two)")
    p.add_argument("--num-warps", type=int, default=4)
    p.add_argument("--num-stages", type=int, default=2)
    p.add_argument("--warmup", type=int, default=1, help="calls before the measured one (default 1; compiles)")
    p.add_argument("--iters", type=int, default=1)
    p.add_argument("--no-check", action="store_true", help="skip the comparison with torch SDPA")
    args = p.parse_args(argv)
    for name in ("head_dim", "block_m", "block_n"):
        value = getattr(args, name)
        if value < 16 or value & (value - 1):
            p.error(f"--{name.replace('_', '-')} must be a power of two of at least 16, got {value}")
    return args


def require_torch_triton_cuda():
    try:
        import torch
    except ImportError:
        sys.exit("triton_attention.py needs PyTorch with CUDA: torch is not installed here (pip install torch)")
    if triton is None:
        sys.exit("triton_attention.py needs Triton: triton is not installed here (pip install triton)")
    if not torch.cuda.is_available():
        sys.exit(f"triton_attention.py needs a CUDA GPU: torch {torch.__version__} sees none")
    return torch


def main(argv=None):
    args = parse_args(argv)
    torch = require_torch_triton_cuda()
    import torch.nn.functional as F

    dtype = getattr(torch, DTYPES[args.dtype])
    seq_kv = args.seq_kv or args.seq
    q = torch.randn(args.batch, args.heads, args.seq, args.head_dim, device="cuda", dtype=dtype)
    k = torch.randn(args.batch, args.heads, seq_kv, args.head_dim, device="cuda", dtype=dtype)
    v = torch.randn(args.batch, args.heads, seq_kv, args.head_dim, device="cuda", dtype=dtype)
    tiles = {"block_m": args.block_m, "block_n": args.block_n, "num_warps": args.num_warps, "num_stages": args.num_stages}

    out = None
    for step in range(args.warmup + args.iters):
        phase = "warmup" if step < args.warmup else "measured"
        torch.cuda.nvtx.range_push(f"triton_attention {phase} {step}")
        with annotate(q, k, v, causal=args.causal, tiles=tiles):
            out = attention(q, k, v, args.causal, args.block_m, args.block_n, args.num_warps, args.num_stages)
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()

    if not args.no_check:
        # PyTorch's is_causal is top-left aligned; build the bottom-right mask (row i sees j <= i + Nkv - Nq).
        mask = None
        if args.causal:
            rows = torch.arange(args.seq, device="cuda")[:, None]
            cols = torch.arange(seq_kv, device="cuda")[None, :]
            mask = cols <= rows + (seq_kv - args.seq)
        ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        if mask is not None:
            ref = torch.where(mask.any(dim=1)[None, None, :, None], ref, torch.zeros_like(ref))
        err = (out.float() - ref.float()).abs().max().item()
        tolerance = 2e-2 if args.dtype == "fp16" else 6e-2
        if not err <= tolerance:
            sys.exit(f"triton_attention: max |O - O_sdpa| = {err:.3g} exceeds {tolerance} (the kernel is wrong)")
        print(f"triton_attention: matches torch SDPA (max |O - O_sdpa| = {err:.3g})")
    print(
        f"triton_attention: BLOCK_M={args.block_m} BLOCK_N={args.block_n} num_warps={args.num_warps} "
        f"num_stages={args.num_stages}, B={args.batch} H={args.heads} Nq={args.seq} Nkv={seq_kv} d={args.head_dim} "
        f"{args.dtype}{' causal' if args.causal else ''}"
    )


if __name__ == "__main__":
    main()
