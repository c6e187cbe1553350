#!/usr/bin/env bash
# The Hopper forward's persistent build, second call (revisionS.txt: the producer's two held tiles in scalars,
# the first build had 16 bytes of stack there): GPU tests, memcheck, racecheck, the Hopper entries' stack and
# local memory; BM_Hopper of the overlapped configurations (new, main, new again) beside PyTorch's
# FlashAttention-2 and cuDNN; then Nsight Compute on the d 64 default and its persistent build (N 4096 and
# 16384), where the persistent build was the slower one.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-persistent2-$stamp
mkdir -p "$OUT"
tar -xJf .device/checkS.tar.xz -C .device   # checkP (new) and checkM (main's bench binary)
export LD_LIBRARY_PATH=$PWD/.device/checkP/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisionS.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
bin=.device/checkP
cuobjdump -res-usage "$bin/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper.txt"
echo "hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper.txt")"
step hopper_tests 240 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
step memcheck 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
step racecheck 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$OUT/hopper_tests.log" | head; for f in memcheck racecheck; do echo "$f: $(tail -n 1 "$OUT/$f.log")"; done
F='BM_Hopper/.*/ov:1/'
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
for r in new main new2; do
  b=$bin/attnscope_bench_kernels; [ $r = main ] && b=.device/checkM/attnscope_bench_kernels
  step bench_$r 150 $b --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
    --benchmark_filter="$F" --benchmark_out="$OUT/bench_forward_ours_$r.json" --benchmark_out_format=json
done
step ratios 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_new.json" "$OUT/bench_forward.json"
step sdpa_after 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch_after.json"
grep hopper "$OUT/ratios.log" | tail -24
echo "configuration  new  main  new2 (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); sub(/\/ps:0/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; r[f,n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) {n=order[i]; print n, ((1,n) in r ? r[1,n] : "-"), ((2,n) in r ? r[2,n] : "-"), ((3,n) in r ? r[3,n] : "-")}}' "$OUT/bench_new.log" "$OUT/bench_main.log" "$OUT/bench_new2.log"
# Nsight Compute: the first launch (the warm-up) of each benchmark, L2 flushed by ncu; one ncu run each.
for n in 4096 16384; do for ps in 0 1; do
  step ncu_d64_N${n}_ps$ps 100 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats \
    --section Occupancy --section WarpStateStats --section SchedulerStats --cache-control all --clock-control none \
    -k regex:hopper_attention_kernel -c 1 $bin/attnscope_bench_kernels \
    --benchmark_filter="BM_Hopper/bf16:0/d:64/N:$n/causal:0/H:32/Br:192/Bc:128/C:3/S:3/ov:1/pp:0/ps:$ps/" \
    --benchmark_min_time=0.001 --benchmark_repetitions=1
done; done
cat "$OUT"/ncu_d64_*.log > "$OUT/ncu_d64.log"
grep -E "hopper_attention_kernel|Duration|DRAM Throughput|Memory Throughput|L2 Hit Rate|Compute \(SM\)|Issue Slots Busy|No Eligible|Grid Size|Waves Per SM" "$OUT/ncu_d64.log" | cut -c1-150 | head -60
cp .device/callS.sh .device/revisionS.txt "$OUT/"
bring_back "$OUT" hopS
