#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""How PyTorch's attention is timed beside attnscope's benchmarks (bench/sdpa_forward.py, sdpa_backward.py):
CUDA events around one call, the L2 flushed by a 256 MiB memset before every iteration, median of 30 (the
protocol of bench/kernels_attention.cpp and kernels_backward.cpp)."""

try:  # only timing needs PyTorch and a GPU
    import torch
except ImportError:
    torch = None

PROTOCOL = "CUDA events, 256 MiB memset before every iteration, median of 30"
_FLUSH = None


def flush_buffer():
    global _FLUSH
    if _FLUSH is None:
        _FLUSH = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    return _FLUSH


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
