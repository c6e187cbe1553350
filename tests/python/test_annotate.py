# SPDX-License-Identifier: Apache-2.0
"""The pure-Python parts of python/attnscope (no torch, no GPU): the annotation text, its checks, and that the
committed test data the C++ parser reads is what the package writes today."""

import importlib.util
import os
import sys
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import annotation_strings  # noqa: E402
from attnscope.annotate import (  # noqa: E402
    annotate,
    annotate_backward,
    annotation_messages,
    format_tile_hint,
    shape_of,
)

StandIn = annotation_strings.StandInTensor


class AnnotationText(unittest.TestCase):
    def test_sdpa_layout(self):
        q = StandIn((1, 32, 4096, 64), "torch.float16")
        self.assertEqual(
            annotation_messages(q, q, q, causal=True),
            ["attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1"],
        )

    def test_cross_attention_lengths(self):
        q = StandIn((2, 8, 128, 128), "torch.bfloat16")
        kv = StandIn((2, 8, 1000, 128), "torch.bfloat16")
        self.assertEqual(shape_of(q, kv, kv)["Nkv"], 1000)
        self.assertEqual(shape_of(q, kv, kv)["dtype"], "bf16")

    def test_refusals(self):
        q = StandIn((1, 32, 4096, 64), "torch.float16")
        with self.assertRaises(ValueError):  # fp32: not a model dtype
            shape_of(StandIn((1, 32, 4096, 64), "torch.float32"), q, q)
        with self.assertRaises(ValueError):  # grouped-query attention: fewer kv heads
            kv = StandIn((1, 8, 4096, 64), "torch.float16")
            shape_of(q, kv, kv)
        with self.assertRaises(ValueError):  # not [B, H, N, d]
            shape_of(StandIn((32, 4096, 64), "torch.float16"), q, q)
        with self.assertRaises(ValueError):
            format_tile_hint({"block_m": 128, "block_n": 64, "num_warps": 4})
        with self.assertRaises(ValueError):
            format_tile_hint({"block_m": 128, "block_n": 0, "num_warps": 4, "num_stages": 2})

    def test_committed_strings_are_current(self):
        path = os.path.join(ROOT, "tests", "data", "foreign", "annotations.txt")
        with open(path) as f:
            committed = [line.rstrip("\n") for line in f if not line.startswith("#")]
        self.assertEqual(committed, annotation_strings.lines())

    @unittest.skipIf(importlib.util.find_spec("torch") is not None, "torch is installed here")
    def test_annotate_without_torch_says_so(self):
        q = StandIn((1, 32, 4096, 64), "torch.float16")
        with self.assertRaisesRegex(RuntimeError, "needs PyTorch"):
            with annotate(q, q, q):
                pass


class StandInTorch(types.ModuleType):
    """The parts of torch annotate and annotate_backward call: NVTX push/pop and the autograd hooks."""

    def __init__(self):
        super().__init__("torch")
        self.nvtx_stack = []
        self.multi_grad_hooks = []
        nvtx = types.SimpleNamespace(range_push=self.nvtx_stack.append, range_pop=self.nvtx_stack.pop)
        self.cuda = types.SimpleNamespace(nvtx=nvtx)
        self.autograd = types.SimpleNamespace(graph=types.SimpleNamespace(register_multi_grad_hook=self.register))

    def register(self, tensors, fn):
        entry = [tensors, fn]
        self.multi_grad_hooks.append(entry)
        return types.SimpleNamespace(remove=lambda: self.multi_grad_hooks.remove(entry))


class GradTensor(StandIn):
    def __init__(self, shape, dtype):
        super().__init__(shape, dtype)
        self.requires_grad = True
        self.hooks = []

    def register_hook(self, fn):
        self.hooks.append(fn)
        return types.SimpleNamespace(remove=lambda: self.hooks.remove(fn))


class WithStandInTorch(unittest.TestCase):
    def setUp(self):
        self.saved = sys.modules.get("torch")
        self.torch = sys.modules["torch"] = StandInTorch()

    def tearDown(self):
        if self.saved is None:
            del sys.modules["torch"]
        else:
            sys.modules["torch"] = self.saved

    def test_annotate_pushes_and_pops(self):
        q = StandIn((1, 32, 4096, 64), "torch.float16")
        with annotate(q, q, q, causal=True, tiles={"block_m": 128, "block_n": 64, "num_warps": 4, "num_stages": 2}):
            self.assertEqual(len(self.torch.nvtx_stack), 2)
            self.assertTrue(self.torch.nvtx_stack[0].startswith("attnscope: "))
        self.assertEqual(self.torch.nvtx_stack, [])

    def test_annotate_backward_balances_over_steps(self):
        q, k, v = (GradTensor((1, 32, 4096, 64), "torch.float16") for _ in range(3))
        for _ in range(3):  # three training steps, the same q, k, v
            out = GradTensor((1, 32, 4096, 64), "torch.float16")
            annotate_backward(out, q, k, v, causal=True)
            for hook in list(out.hooks):  # out's gradient arrives
                hook("grad")
            self.assertEqual(self.torch.nvtx_stack, ["attnscope: B=1 H=32 Nq=4096 Nkv=4096 d=64 dtype=fp16 causal=1"])
            for _, fn in list(self.torch.multi_grad_hooks):  # q, k and v have theirs
                fn(("dq", "dk", "dv"))
            self.assertEqual(self.torch.nvtx_stack, [])
            self.assertEqual(self.torch.multi_grad_hooks, [])
            self.assertEqual(out.hooks, [])


if __name__ == "__main__":
    unittest.main()
