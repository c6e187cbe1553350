#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A Markdown table of DRAM bytes, L2 bytes and durations per kernel from `ncu --csv --page raw` output.

    python3 scripts/ncu_bytes_table.py NCU_LOG [NCU_LOG ...]

Reads the CSV rows ncu printed (other lines, e.g. the benchmark's own output, are skipped), one row per
profiled launch, and prints per launch and in total: DRAM bytes read and written (dram__bytes_read.sum,
dram__bytes_write.sum), L2 bytes (lts__t_bytes.sum) and duration (gpu__time_duration.sum), in GB and ms.
"""
import csv
import io
import sys

UNITS = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9,
         "nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3, "ns": 1e-6, "us": 1e-3, "ms": 1.0}
METRICS = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum", "gpu__time_duration.sum"]


def rows(path):
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    if not lines:
        return []
    table = list(csv.reader(io.StringIO("".join(lines))))
    header, units, data = table[0], table[1], table[2:]
    out = []
    for r in data:
        rec = {"kernel": r[header.index("Kernel Name")]}
        for m in METRICS:
            i = header.index(m)
            scale = UNITS.get(units[i], 1.0)
            value = float(r[i].replace(",", "")) * scale
            rec[m] = value / 1e9 if "bytes" in m else value  # GB or ms
        out.append(rec)
    return out


def main():
    for path in sys.argv[1:]:
        rs = rows(path)
        print(f"\n{path}\n")
        print("| launch | DRAM read (GB) | DRAM write (GB) | L2 (GB) | time (ms) |")
        print("|---|---|---|---|---|")
        total = {m: 0.0 for m in METRICS}
        for r in rs:
            name = r["kernel"].split("(")[0].split("<")[0].split("::")[-1]
            print(f"| {name} | {r[METRICS[0]]:.3f} | {r[METRICS[1]]:.3f} | {r[METRICS[2]]:.3f} | {r[METRICS[3]]:.3f} |")
            for m in METRICS:
                total[m] += r[m]
        print(f"| **total** | {total[METRICS[0]]:.3f} | {total[METRICS[1]]:.3f} | {total[METRICS[2]]:.3f} | "
              f"{total[METRICS[3]]:.3f} |")
        print(f"\nDRAM read + write: {total[METRICS[0]] + total[METRICS[1]]:.2f} GB")


if __name__ == "__main__":
    main()
