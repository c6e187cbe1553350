#!/usr/bin/env bash
# The Hopper forward, two builds of one source tree, same run:
#   A = branch hopper-wait-anchor (the softmax's ordering store from lane 0 of each consumer warp, the d 64
#       default Br 192 overlapped at 3 stages, the model counting the store);
#   B = branch hopper-pv-n128 (A + P V as one wgmma of N = d per k16 step).
# GPU tests, memcheck and racecheck of both, every overlapped BM_Hopper configuration of A and of B beside PyTorch's
# FlashAttention-2 and cuDNN (timed before and after ours), and the wgmma_overlap microbenchmark.
set -u -o pipefail
cd "$(dirname "$0")/.."
source scripts/lib/bring_back.sh
FINAL=${OUT:-$PWD/out}
stamp=$(date -u +%Y%m%dT%H%M%SZ)
OUT=$FINAL/hopper-pv-$stamp
mkdir -p "$OUT"
tar -xJf .device/binaries.tar.xz -C .device  # checkA, checkB, hopper-profile (one archive: they share most bytes)
tar -xzf .device/microbench.tar.gz -C .device
export LD_LIBRARY_PATH=$PWD/.device/checkA/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
PY=/opt/torch/.venv/bin/python; [ -x "$PY" ] || PY=python3
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,power.limit --format=csv,noheader; cat .device/revisions.txt; } | tee "$OUT/machine.txt"
step() {
  local name=$1 limit=$2; shift 2
  echo "$(date -u +%H:%M:%S) $name: $*" >> "$OUT/commands.txt"
  timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
  echo $? >"$OUT/$name.rc"; echo "$(date -u +%H:%M:%S) $name rc=$(cat "$OUT/$name.rc")"
}
for v in A B; do
  cuobjdump -res-usage ".device/check$v/kernels_gpu_test" 2>&1 | grep -A1 hopper_attention > "$OUT/res_usage_hopper_$v.txt"
  echo "$v: hopper entries with stack or local memory: $(grep -cE 'STACK:[1-9]|LOCAL:[1-9]' "$OUT/res_usage_hopper_$v.txt") of $(grep -c 'REG:' "$OUT/res_usage_hopper_$v.txt")"
done
for v in A B; do
  bin=.device/check$v
  step hopper_tests_$v 240 "$bin/kernels_gpu_test" --gtest_color=no --gtest_filter='HopperAttention.*' &
  step memcheck_$v 240 compute-sanitizer --tool memcheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
  step racecheck_$v 240 compute-sanitizer --tool racecheck --error-exitcode 3 "$bin/kernels_gpu_test" --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
  wait
done
for v in A B; do grep -E "^\[  (PASSED|FAILED) " "$OUT/hopper_tests_$v.log"; for f in memcheck racecheck; do echo "$f $v: $(tail -n 1 "$OUT/${f}_$v.log")"; done; done
# (The CUPTI profile of A's defaults comes last, after the benchmarks.)
step sdpa 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch.json"
step bench_A 200 .device/checkA/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="${HFILTER:-BM_Hopper/.*/ov:1/}" --benchmark_out="$OUT/bench_forward_ours_A.json" --benchmark_out_format=json
step bench_B 200 .device/checkB/attnscope_bench_kernels --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_filter="${HFILTER:-BM_Hopper/.*/ov:1/}" --benchmark_out="$OUT/bench_forward_ours_B.json" --benchmark_out_format=json
step ratios_A 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_A.json" "$OUT/bench_forward_A.json"
step ratios_B 30 "$PY" bench/sdpa_forward.py --merge "$OUT/bench_forward_pytorch.json" "$OUT/bench_forward_ours_B.json" "$OUT/bench_forward_B.json"
step sdpa_after 150 "$PY" bench/sdpa_forward.py --time "$OUT/bench_forward_pytorch_after.json"
# A's new defaults under CUPTI (llm-4k fp16, d 64 and 128, causal or not): the accuracy table's Hopper rows once A
# is merged (the binary is A's attnscope, packed as hopper-profile/).
step hopper_profile 200 env OUT="$OUT" bash scripts/gpu_hopper_profile.sh
grep -E "^llm-4k|dram_read|time" "$OUT/hopper_profile.log" | head -24
step microbench 120 env OUT="$OUT/microbench" bash .device/microbench/gpu_microbench.sh --only wgmma_overlap,wgmma_rate
grep -A30 "wgmma_overlap" "$OUT/microbench/microbench.log" | head -30
for v in A B; do echo "== $v"; grep hopper "$OUT/ratios_$v.log" | tail -14; done
echo "configuration  A  B (TFLOP/s, medians)"
awk 'FNR==1{f++} /BM_Hopper.*_median/ {n=$1; sub(/\/min_time.*/, "", n); v="?"; for (c=2;c<=NF;c++) if ($c ~ /^TFLOP_per_s=/) {v=$c; sub(/TFLOP_per_s=/, "", v)}; if (f==1) a[n]=v; else b[n]=v; if (!(n in seen)) {seen[n]=1; order[++k]=n}} END {for (i=1;i<=k;i++) print order[i], a[order[i]], (order[i] in b ? b[order[i]] : "-")}' "$OUT/bench_A.log" "$OUT/bench_B.log" | head -64
cp .device/callY.sh "$OUT/"
bring_back "$OUT" hopY
