#!/usr/bin/env bash
# The naive backward again at every shape with rows off 16-byte boundaries (Nkv % 8 != 0) that the committed
# recordings have (the fresh backward draws of 2026-12-07 on the H100 and the H200), now that naive_bwd.ds
# and .dp run those rows in 16-byte vectors and 64-byte warp stores: the reports before the change measured
# the previous kernels. Binary: .device/checkR.tar.xz (attnscope, gpu preset, revisionR.txt).
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/naive-bwd-remeasure-$stamp
mkdir -p "$OUT/profile"
tar -xJf .device/checkR.tar.xz -C .device
export LD_LIBRARY_PATH=/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export ATTNSCOPE_GPU_SPEC_DIR=$PWD/sim/gpus
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; cat .device/revisionR.txt; } | tee "$OUT/machine.txt"
# name  batch heads Nq Nkv d dtype flags
while read -r name b h q k d dt flags; do
  cmd=(.device/checkR/attnscope profile --kernel naive --pass bwd -b $b --heads $h --seq-q $q --seq-kv $k -d $d --dtype $dt $flags --keep-tiles windows -o "$OUT/profile/$name-naive.json")
  echo "$(date -u +%H:%M:%S) ${cmd[*]}" >> "$OUT/commands.txt"
  timeout 100 "${cmd[@]}" > "$OUT/$name.log" 2>&1; rc=$?
  echo "$(date -u +%H:%M:%S) $name rc=$rc"; grep -E "^naive_bwd\.(ds|dp) " "$OUT/$name.log"
done <<'SHAPES'
freshbwd19-b20-h9-q1472-k1707-d128-bf16-causal 20 9 1472 1707 128 bf16 --causal
freshbwd06-b18-h28-q518-k518-d128-fp16-causal 18 28 518 518 128 fp16 --causal
freshbwd23-b4-h14-q4569-k1049-d128-bf16-causal 4 14 4569 1049 128 bf16 --causal
freshbwd09-b20-h25-q1051-k1051-d128-fp16 20 25 1051 1051 128 fp16 --no-causal
freshbwd00-b130-h14-q287-k287-d128-bf16 130 14 287 287 128 bf16 --no-causal
freshbwd04-b22-h22-q269-k1407-d128-bf16-causal-alibi 22 22 269 1407 128 bf16 --causal --alibi
freshbwd12-b32-h9-q461-k461-d128-fp16 32 9 461 461 128 fp16 --no-causal
freshbwd19-b3-h31-q1377-k11371-d64-bf16-causal 3 31 1377 11371 64 bf16 --causal
freshbwd18-b1-h26-q16189-k1308-d64-bf16 1 26 16189 1308 64 bf16 --no-causal
SHAPES
cp .device/callR.sh .device/revisionR.txt "$OUT/"
bring_back "$OUT" naiveR
