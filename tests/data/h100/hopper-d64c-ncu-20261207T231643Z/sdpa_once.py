#!/usr/bin/env python3
# One cuDNN (or FlashAttention-2) SDPA forward inside the NVTX range "target", after two warm-up calls:
# for `ncu --nvtx --nvtx-include target/`. Args: backend (cudnn|flash) dtype (fp16|bf16) d causal(0|1).
import sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
backend, dt, d, causal = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
dtype = torch.float16 if dt == "fp16" else torch.bfloat16
q, k, v = (torch.randn(1, 32, 4096, d, device="cuda", dtype=dtype) for _ in range(3))
b = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[backend]
with sdpa_kernel(b):
    for _ in range(2):
        F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("target")
    F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
print("done", backend, dt, d, causal)
