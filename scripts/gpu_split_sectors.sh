#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The split-sector experiment on a GPU machine: attnscope-microbench's `split_sectors` benchmark (a sector
# written in part by two stores `lag` rows apart, microbench/src/bench_partial.cu) under Nsight Compute, so
# that each launch gets its DRAM and L2 counters. L2 is flushed before every launch (--cache-control all),
# as attnscope measures its own kernels.
#
#   bash scripts/gpu_split_sectors.sh [path/to/attnscope-microbench]
#
# Writes to $OUT (default ./out): split_sectors.json (the benchmark's own results: per configuration its
# rows, lag, shared sectors, kernel times and the index of its first launch), split_sectors.csv (ncu, one row
# per launch, in launch order), split_sectors.log, README.md (date, GPU, driver, the commands). Then prints,
# per configuration, the DRAM bytes read and written beyond the buffer's bytes, and per shared sector. The
# kernel's DRAM writes leave out what is still dirty in L2 when it ends (about 29 MB on the H200), so the
# aligned control's numbers are the baseline the unaligned ones compare with, lag for lag.
set -u -o pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-$here/attnscope-microbench}
[ -x "$bin" ] || bin=$here/../build/gpu/microbench/attnscope-microbench
[ -x "$bin" ] || { echo "attnscope-microbench not found (give its path)" >&2; exit 1; }
command -v ncu >/dev/null || { echo "ncu (Nsight Compute) is not on PATH" >&2; exit 1; }
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
metrics=dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,gpu__time_duration.sum
cmd=(ncu --metrics "$metrics" --cache-control all --clock-control none -k regex:split_sector_store
  --csv --page raw "$bin" --only split_sectors --quick --out "$OUT/split_sectors.json")
{
  echo "# split_sectors under Nsight Compute"
  echo
  echo "- date (UTC): $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "- GPU: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "- ncu: $(ncu --version 2>&1 | tail -1)"
  echo "- command: \`${cmd[*]}\`"
} >"$OUT/README.md"
"${cmd[@]}" >"$OUT/split_sectors.csv" 2>"$OUT/split_sectors.log"
rc=$?
echo "- exit code: $rc" >>"$OUT/README.md"
python3 - "$OUT/split_sectors.json" "$OUT/split_sectors.csv" <<'PY' | tee "$OUT/summary.txt"
import csv, json, statistics, sys
res = json.load(open(sys.argv[1]))["benchmarks"]["split_sectors"]["results"]
# The csv holds the benchmark's own output and ncu's messages too: keep ncu's quoted csv lines.
rows = list(csv.reader(l for l in open(sys.argv[2]) if l.startswith('"')))
head, units, launches = rows[0], rows[1], rows[2:]
scale = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "KB": 1e3, "MB": 1e6, "GB": 1e9}
def metric(launch, key):
    c = head.index(key)
    return float(launch[c].replace(",", "")) * scale.get(units[c], 1)
print(f"{len(launches)} launches counted by ncu")
print("layout     lag rows    lag MB  shared sectors     DRAM read  DRAM write - written   per shared sector (B): read, write")
for r in res:
    p = r["params"]
    first, n = int(p["first_launch"]), int(p["launches"])
    mine = launches[first:first + n]
    if len(mine) < n:
        print(f"{p['layout']:<10} {int(p['lag_rows']):>8}: only {len(mine)} of {n} launches in the csv")
        continue
    read = statistics.median(metric(x, "dram__bytes_read.sum") for x in mine)
    write = statistics.median(metric(x, "dram__bytes_write.sum") for x in mine)
    extra_w = write - p["bytes_written"]
    shared = p["shared_sectors"]
    per = f"{read / shared:>8.2f} {extra_w / shared:>8.2f}" if shared else "       -        -"
    print(f"{p['layout']:<10} {int(p['lag_rows']):>8} {p['lag_bytes'] / 1e6:>9.2f} {int(p['shared_sectors']):>15}"
          f" {read / 1e6:>10.2f} MB {extra_w / 1e6:>+17.2f} MB   {per}")
PY
exit $rc
