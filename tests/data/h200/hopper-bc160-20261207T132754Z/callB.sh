#!/usr/bin/env bash
# Longer kv steps at d 128 (revisionB.txt): the Hopper kernel with Bc 160 (persistent, 2 stages) and Bc 176
# (one CTA per tile, 2 stages) beside d 128's default (Bc 128 persistent). GPU tests of every compiled
# configuration, memcheck, racecheck, stack/local memory of every Hopper entry; BM_Hopper at d 128 (fp16,
# bf16, fp16 causal) twice around PyTorch's FlashAttention-2 and cuDNN timed the same way.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-bc160-$stamp
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
cuobjdump -res-usage "$bin/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
step hopper_tests 240 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$OUT/hopper_tests.log" | head; for f in memcheck racecheck; do echo "$f: $(tail -n 1 "$OUT/$f.log")"; done
F='BM_Hopper/bf16:[01]/d:128/N:4096/causal:[01]/H:32/Br:128/Bc:(128|160|176)/C:2/S:2/ov:1/pp:1/'
step bench_1 150 $bin/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_1.json" --benchmark_out_format=json
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
step bench_2 150 $bin/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_2.json" --benchmark_out_format=json
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_1.json" "$OUT/bench_forward.json"
step ratios_2 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_2.json" "$OUT/bench_forward_2.json"
grep -iE "hopper|cudnn|flash" "$OUT/ratios.log" | tail -16
echo "configuration  run1  run2 (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; r[f,n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) {n=order[i]; print n, ((1,n) in r ? r[1,n] : "-"), ((2,n) in r ? r[2,n] : "-")}}' "$OUT/bench_1.log" "$OUT/bench_2.log"
cp .device/callB.sh .device/revisionB.txt "$OUT/"
bring_back "$OUT" hopB
