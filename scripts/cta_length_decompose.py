#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Per-CTA and per-step cost of a kernel from two Nsight Compute runs of the same tile at two lengths.

    scripts/cta_length_decompose.py SHORT.csv LONG.csv --steps S1 S2 [--sms 132]

Each file is `ncu --csv --page raw` output (other lines are skipped) with smsp__inst_executed.sum,
sm__cycles_elapsed.max and launch__grid_size for one launch, or the model's report of the same launch
(`attnscope simulate ... --json FILE`: its first kernel's modeled cycles and CTAs; no instructions). With C CTAs of s steps each and one CTA per SM at
a time, instructions = C c0 + C s c1 and the busiest SM's cycles = n (c0 + s c1), n = ceil(C / SMs) (the CTAs
that SM runs one after another). Two lengths give two equations each; prints c0 and c1 for both.
Standard library only.
"""
import argparse
import csv
import math


def read(path):
    if path.endswith(".json"):
        import json
        k = json.load(open(path))["kernels"][0]
        return float(k["notes"]["model.ctas"]), None, float(k["metrics"]["cycles"]["modeled"])
    rows = list(csv.reader(line for line in open(path) if line.startswith('"')))
    head, data = rows[0], rows[2]
    value = lambda key: float(data[head.index(key)].replace(",", ""))
    return value("launch__grid_size"), value("smsp__inst_executed.sum"), value("sm__cycles_elapsed.max")


def solve(a, b, c, d, e, f):
    det = a * d - b * c
    return (e * d - b * f) / det, (a * f - c * e) / det


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("short")
    p.add_argument("long")
    p.add_argument("--steps", type=int, nargs=2, required=True, help="steps per CTA of the two runs")
    p.add_argument("--sms", type=int, default=132)
    a = p.parse_args()
    (g1, i1, y1), (g2, i2, y2) = read(a.short), read(a.long)
    s1, s2 = a.steps
    if i1 is not None and i2 is not None:
        c0, c1 = solve(g1, g1 * s1, g2, g2 * s2, i1, i2)
        print(f"warp instructions: per CTA c0 = {c0:.0f}, per CTA step c1 = {c1:.1f} (c0 = {c0 / c1:.2f} steps)")
    n1, n2 = math.ceil(g1 / a.sms), math.ceil(g2 / a.sms)
    t0, t1 = solve(n1, n1 * s1, n2, n2 * s2, y1, y2)
    print(f"busiest SM's cycles ({n1} and {n2} CTAs): per CTA c0 = {t0:.0f}, per step c1 = {t1:.1f} "
          f"(c0 = {t0 / t1:.2f} steps)")


if __name__ == "__main__":
    main()
