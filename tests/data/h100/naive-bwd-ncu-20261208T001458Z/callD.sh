#!/usr/bin/env bash
# Why the merged naive_bwd.ds and the dP GEMM take longer on rows off 16-byte boundaries than the model says:
# Nsight Compute (--set full, one launch each, L2 flushed by ncu) of naive_bwd.ds and of the second backward
# GEMM launch (dP) at freshbwd19's shape (B 20, H 9, Nq 1472, d 128, bf16, causal) with Nkv 1707 (rows off
# 16-byte boundaries) and 1704 (aligned). Binary: .device/checkR (callR.sh unpacks it).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/naive-bwd-ncu-$stamp
mkdir -p "$OUT"
[ -d .device/checkR ] || tar -xJf .device/checkR.tar.xz -C .device
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; ncu --version | tail -1; cat .device/revisionR.txt; } | tee "$OUT/machine.txt"
for k in 1707 1704; do
  app=(.device/checkR/attnscope profile --launch-only --kernel naive --pass bwd -b 20 --heads 9 --seq-q 1472 --seq-kv $k -d 128 --dtype bf16 --causal -o "$OUT/launch-$k.json")
  for sel in "ds:-k regex:naive_bwd_ds -c 1" "dp:-k regex:naive_bwd_gemm -s 1 -c 1"; do
    name=${sel%%:*}_$k; args=${sel#*:}
    echo "$(date -u +%H:%M:%S) ncu --set full --import-source no $args -f -o $OUT/$name ${app[*]}" >> "$OUT/commands.txt"
    timeout 100 ncu --set full --import-source no $args -f -o "$OUT/$name" "${app[@]}" > "$OUT/$name.log" 2>&1
    echo "$(date -u +%H:%M:%S) $name rc=$?"
    [ -f "$OUT/$name.ncu-rep" ] && ncu --import "$OUT/$name.ncu-rep" --page details > "$OUT/${name}_details.txt" 2>&1
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|Memory Throughput|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occupancy" "$OUT/${name}_details.txt" 2>/dev/null | head -8
  done
done
rm -f "$OUT"/launch-*.json
cp .device/callD.sh "$OUT/"
bring_back "$OUT" naiveD
