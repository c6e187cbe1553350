# bench/sdpa_backward.py's --time restricted to the llm-4k fp16 shapes (d 64 and 128, causal and not), both
# backends, same protocol and output format (this file's folder must not shadow bench/).
import json, sys, os
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import torch
import sdpa_backward as sb
from sdpa_timing import PROTOCOL
refs = []
for d in (64, 128):
    for c in (False, True):
        for backend in ("flash", "cudnn"):
            r = sb.time_case(backend, 1, 32, 4096, d, torch.float16, c, False)
            refs.append(r); print(json.dumps(r), flush=True)
json.dump(dict(torch=torch.__version__, device=torch.cuda.get_device_name(),
               protocol="torch.autograd.grad of F.scaled_dot_product_attention, " + PROTOCOL, references=refs),
          open(sys.argv[1], "w"), indent=1)
