#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docs/metrics.md holds the metric table exactly as `attnscope metrics --markdown` prints it.
Usage: docs_metrics_check.py ATTNSCOPE_BINARY DOCS_METRICS_MD"""
import subprocess
import sys

table = subprocess.run([sys.argv[1], "metrics", "--markdown"], capture_output=True, text=True, check=True).stdout
doc = open(sys.argv[2], encoding="utf-8").read()
if table not in doc:
    sys.exit(f"{sys.argv[2]} differs from `attnscope metrics --markdown`: regenerate its table")
print(f"{sys.argv[2]}: the metric table is current ({table.count(chr(10)) - 2} metrics)")
