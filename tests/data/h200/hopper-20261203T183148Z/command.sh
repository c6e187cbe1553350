#!/usr/bin/env bash
# Hopper kernel check on the H200, second run: SASS counts, benchmarks without ping-pong first (a hang of the
# ping-pong schedule cannot cost them), GPU tests + memcheck, racecheck, then the ping-pong benchmarks.
# At most 8 files under $OUT/run (they come back without packing).
set -u
cd "$(dirname "$0")"
tar -xzf bins.tar.gz
export LD_LIBRARY_PATH=$PWD/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
O=${OUT:-$PWD/out}/run
mkdir -p "$O"
S=$O/summary.txt
{ date -u +%Y-%m-%dT%H:%M:%SZ; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader; } >>"$S" 2>&1
step() {  # name, log, timeout, command...
  local name=$1 log=$2 limit=$3
  shift 3
  echo "== $name: $*" >>"$S"
  timeout "$limit" "$@" >>"$O/$log" 2>&1
  echo "$name rc=$?" | tee -a "$S"
}
CO=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CO" -sass ./kernels_gpu_test 2>&1 | awk '/Function :/ {keep = ($0 ~ /hopper_attention_kernel/)} keep' >"$O/hopper.sass"
{ echo "== cuobjdump -sass (Hopper kernels): HGMMA $(grep -c HGMMA "$O/hopper.sass") UTMALDG $(grep -c UTMALDG "$O/hopper.sass") LDL $(grep -c LDL "$O/hopper.sass") STL $(grep -c STL "$O/hopper.sass") functions $(grep -c 'Function :' "$O/hopper.sass")";
  echo "== cuobjdump -res-usage (Hopper kernels)"; "$CO" -res-usage ./kernels_gpu_test 2>&1 | grep -A1 hopper_attention_kernel; } >>"$S"
gzip -f "$O/hopper.sass"
F='BM_CopyBandwidth|BM_Attention/naive:0/bf16:[01]/d:(64|128)/N:(4096|16384)/causal:[01]/H:32/Br:128/Bc:64/W:4/'
step bench bench.log 60 ./attnscope_bench_kernels --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_filter="$F|BM_Hopper/.*/pp:0/" --benchmark_out="$O/bench.json" --benchmark_out_format=json
step tests tests.log 60 ./kernels_gpu_test --gtest_color=no --gtest_filter='HopperAttention.*:Sanitize.SmallHopper' &
step memcheck memcheck.log 60 compute-sanitizer --tool memcheck --error-exitcode 3 ./kernels_gpu_test --gtest_filter='Sanitize.SmallHopper' --gtest_color=no &
wait
step racecheck racecheck.log 35 compute-sanitizer --tool racecheck --error-exitcode 3 ./kernels_gpu_test --gtest_filter='Sanitize.SmallHopper' --gtest_color=no
step bench_pp bench.log 30 ./attnscope_bench_kernels --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_filter='BM_Hopper/.*/pp:1/' --benchmark_out="$O/bench_pp.json" --benchmark_out_format=json
echo "== summary"; grep rc= "$S"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$O/tests.log" | head -20
grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$O/memcheck.log" "$O/racecheck.log"
grep -E "HGMMA" "$S"
grep -E "median" "$O/bench.log" | sed -E 's/ +/ /g; s/min_time:0.200.manual_time_median//' | cut -c1-190
