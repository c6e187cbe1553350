#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every metric key is spelled once, in the metric table (vocab/include/attnscope/vocab/metric.hpp): no
other source file of the tool (tests aside) writes a key as a string literal; they name metrics by
vocab::Metric and turn them into text with vocab::key() at the file boundary. Prints each offending line and
exits 1 when there is one."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[1])
table = root / "vocab/include/attnscope/vocab/metric.hpp"
keys = re.findall(r'\{Metric::\w+, "(\w+)"', table.read_text())
if len(keys) < 10:
    sys.exit(f"found only {len(keys)} keys in {table}: has the table's layout changed?")
literal = re.compile('"(' + "|".join(map(re.escape, keys)) + ')"')
offenders = []
for folder in ("vocab", "sim", "kernels", "reports", "profiler", "gui", "cli", "bench"):
    for path in sorted((root / folder).rglob("*")):
        if path.suffix not in {".cpp", ".hpp", ".cu", ".cuh", ".h"} or path == table:
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            code = line.split("//", 1)[0]
            if literal.search(code):
                offenders.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
for o in offenders:
    print(o)
print(f"{len(keys)} metric keys; {len(offenders)} string literal(s) of them outside the metric table")
sys.exit(1 if offenders else 0)
