# FlashAttention-2's backward (PyTorch SDPA) at llm-4k, fp16, d from argv: two backward calls (the first warms
# up), for Nsight Compute to profile the second call's main kernel.
import sys, torch, torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend
d = int(sys.argv[1]); causal = len(sys.argv) > 2 and sys.argv[2] == "causal"
q, k, v = (torch.randn(1, 32, 4096, d, device="cuda", dtype=torch.float16, requires_grad=True) for _ in range(3))
d_o = torch.randn(1, 32, 4096, d, device="cuda", dtype=torch.float16)
with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
    out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    for _ in range(2):
        torch.autograd.grad(out, (q, k, v), d_o, retain_graph=True)
torch.cuda.synchronize()
