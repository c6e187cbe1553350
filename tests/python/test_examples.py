# SPDX-License-Identifier: Apache-2.0
"""The examples (examples/*.py) parse their options and, on a machine without torch, Triton or a GPU, stop with
a message that says what is missing instead of a traceback."""

import importlib.util
import os
import subprocess
import sys
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
EXAMPLES = ["sdpa_example.py", "triton_attention.py"]


def run(script, *args):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", script), *args], capture_output=True, text=True, timeout=60
    )


class Examples(unittest.TestCase):
    def test_help(self):
        for script in EXAMPLES:
            r = run(script, "--help")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("attnscope profile --", r.stdout)

    def test_bad_tile_is_refused_before_anything_runs(self):
        r = run("triton_attention.py", "--block-n", "48")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--block-n must be a power of two", r.stderr)

    @unittest.skipIf(importlib.util.find_spec("torch") is not None, "torch is installed here")
    def test_without_torch_says_so(self):
        for script in EXAMPLES:
            r = run(script)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("needs PyTorch", r.stderr)
            self.assertNotIn("Traceback", r.stderr)


if __name__ == "__main__":
    unittest.main()
