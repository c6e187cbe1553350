#!/usr/bin/env bash
# The Hopper kernel at d 64 on the H200 (checkB binaries, revisionB.txt): BM_Hopper of the d 64 default tile
# (Br 192, Bc 128, 3 consumers, 3 stages, overlapped) and its persistent build, llm-4k fp16/bf16, causal or
# not, and N 16384; PyTorch's FlashAttention-2 and cuDNN timed the same way between two runs of ours.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-d64-h200-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkB.tar.xz -C .device
bin=.device/checkB
export LD_LIBRARY_PATH=$PWD/$bin/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionB.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
F='BM_Hopper/bf16:[01]/d:64/N:(4096|16384)/causal:[01]/H:32/Br:192/Bc:128/C:3/S:3/ov:1/pp:0/'
step bench_1 120 $bin/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_1.json" --benchmark_out_format=json
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
step bench_2 120 $bin/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_2.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_1.json" "$OUT/bench_forward.json"
step ratios_2 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_2.json" "$OUT/bench_forward_2.json"
grep -iE "vs (cudnn|flash)" "$OUT/ratios.log" | tail -24
echo "configuration  run1  run2 (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; r[f,n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) {n=order[i]; print n, ((1,n) in r ? r[1,n] : "-"), ((2,n) in r ? r[2,n] : "-")}}' "$OUT/bench_1.log" "$OUT/bench_2.log"
cp .device/callD.sh .device/revisionB.txt "$OUT/"
bring_back "$OUT" hopD
