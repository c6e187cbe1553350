# SPDX-License-Identifier: Apache-2.0
"""Announce the attention shape of the calls inside a block to `attnscope profile -- COMMAND`.

The profiler sees kernel launches, not tensors: without a shape it can measure a FlashAttention kernel but not
model it. `annotate(q, k, v, causal=...)` pushes an NVTX range whose message carries the shape,

    attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1

and the profiler reads it for every kernel launched inside the block (parse_annotation in
profiler/src/recognize.cpp is the reader; this module is the writer, and tests/data/foreign/annotations.txt
holds strings written here that the C++ tests parse back).

A kernel whose name carries no tile sizes (a Triton kernel) can add them with `tiles=`, a second range:

    attnscope tiles: block_m=128 block_n=64 num_warps=4 num_stages=2

NVTX ranges belong to the thread that pushes them, and PyTorch runs the backward pass of CUDA tensors on its
own autograd thread: a range pushed around `loss.backward()` does not reach the backward's kernels. For those,
`annotate_backward(out, q, k, v, causal=...)` pushes the same range on the thread that runs the backward,
from a hook on `out`'s gradient, and pops it from a hook that fires once q, k and v have theirs.

The formatting below needs only objects with `.shape` and `.dtype`; torch is imported only to push the range.
"""

import contextlib

ANNOTATION_PREFIX = "attnscope:"
TILE_HINT_PREFIX = "attnscope tiles:"

# torch dtype names -> the annotation's names (the model covers the two 16-bit inputs of the tensor cores)
_DTYPES = {"float16": "fp16", "half": "fp16", "bfloat16": "bf16"}
_TILE_KEYS = ("block_m", "block_n", "num_warps", "num_stages")


def dtype_name(dtype):
    """'fp16' or 'bf16' for a torch dtype (or anything whose str() ends in its name, e.g. 'torch.float16')."""
    name = str(dtype).rsplit(".", 1)[-1]
    if name not in _DTYPES:
        raise ValueError(f"attnscope models fp16 and bf16 attention, not {dtype}")
    return _DTYPES[name]


def shape_of(q, k, v, causal=False):
    """The annotated shape of SDPA's inputs in its [B, H, N, d] layout, as a dict of the annotation's fields."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if len(t.shape) != 4:
            raise ValueError(f"{name} must be [B, H, N, d] as scaled_dot_product_attention takes it, got {tuple(t.shape)}")
    b, h, nq, d = (int(x) for x in q.shape)
    bk, hk, nkv, dk = (int(x) for x in k.shape)
    bv, hv, nv, dv = (int(x) for x in v.shape)
    if (bk, hk, dk) != (b, h, d) or (bv, hv, nv) != (b, h, nkv):
        raise ValueError(
            f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}: the model covers one head dim and as many "
            "key/value heads as query heads"
        )
    if dv != d:
        raise ValueError(f"v's head dim {dv} differs from q's {d}: the model covers one head dim")
    if q.dtype != k.dtype or q.dtype != v.dtype:
        raise ValueError(f"q, k and v have different dtypes ({q.dtype}, {k.dtype}, {v.dtype})")
    return {"B": b, "H": h, "Nq": nq, "Nkv": nkv, "d": d, "dtype": dtype_name(q.dtype), "causal": 1 if causal else 0}


def format_annotation(shape):
    """The NVTX message for a shape dict (the fields of shape_of, in this order)."""
    keys = ("B", "H", "Nq", "Nkv", "d", "dtype", "causal")
    return ANNOTATION_PREFIX + "".join(f" {key}={shape[key]}" for key in keys)


def format_tile_hint(tiles):
    """The NVTX message of a tile hint: a dict with block_m, block_n, num_warps and num_stages."""
    missing = [key for key in _TILE_KEYS if key not in tiles]
    extra = [key for key in tiles if key not in _TILE_KEYS]
    if missing or extra:
        raise ValueError(f"tiles needs exactly {', '.join(_TILE_KEYS)} (missing {missing}, unknown {extra})")
    for key in _TILE_KEYS:
        if int(tiles[key]) <= 0:
            raise ValueError(f"tiles[{key!r}] must be a positive integer, got {tiles[key]}")
    return TILE_HINT_PREFIX + "".join(f" {key}={int(tiles[key])}" for key in _TILE_KEYS)


def annotation_messages(q, k, v, causal=False, tiles=None):
    """The NVTX messages annotate() pushes, outermost first."""
    messages = [format_annotation(shape_of(q, k, v, causal))]
    if tiles is not None:
        messages.append(format_tile_hint(tiles))
    return messages


def _nvtx():
    try:
        import torch
    except ImportError as e:  # the formatting works without torch; pushing a range does not
        raise RuntimeError("attnscope.annotate needs PyTorch (torch.cuda.nvtx) to push its NVTX range") from e
    return torch


@contextlib.contextmanager
def annotate(q, k, v, causal=False, tiles=None):
    """Context manager: the attention calls inside it are announced with q, k, v's shape (and `tiles`).

    `causal` means attnscope's mask, bottom-right aligned (row i sees key j iff j <= i + Nkv - Nq); PyTorch's
    is_causal=True is top-left aligned, the same mask when Nq == Nkv.
    """
    messages = annotation_messages(q, k, v, causal, tiles)
    torch = _nvtx()
    pushed = 0
    try:
        for message in messages:
            torch.cuda.nvtx.range_push(message)
            pushed += 1
        yield messages
    finally:
        for _ in range(pushed):
            torch.cuda.nvtx.range_pop()


def annotate_backward(out, q, k, v, causal=False):
    """Announce q, k, v's shape to the kernels of the backward pass that flows from `out` into q, k and v.

    Call it after the forward (`out = scaled_dot_product_attention(q, k, v, ...)`) and before `backward()`.
    The range is pushed when out's gradient arrives (on the thread that runs the backward) and popped once the
    gradients of q, k and v are computed; q, k and v must require grad. Returns the hook handles.
    """
    messages = annotation_messages(q, k, v, causal)
    torch = _nvtx()
    inputs = [t for t in (q, k, v) if t.requires_grad]
    if not inputs:
        raise ValueError("annotate_backward: none of q, k, v requires grad, so no backward pass reaches them")

    # q, k and v outlive this backward (the next step's forward uses them again): the hooks on them must fire
    # once, or a later backward would pop ranges it never pushed.
    state = {"pushed": False, "handles": []}

    def push(grad):
        if not state["pushed"]:
            for message in messages:
                torch.cuda.nvtx.range_push(message)
            state["pushed"] = True
        return grad

    def pop(_grads):
        if state["pushed"]:
            for _ in messages:
                torch.cuda.nvtx.range_pop()
            state["pushed"] = False
        for handle in state["handles"]:
            handle.remove()
        state["handles"].clear()

    state["handles"] += [out.register_hook(push), torch.autograd.graph.register_multi_grad_hook(inputs, pop)]
    return list(state["handles"])
